"""A credential told over two messages with a user name or a separator between the word
and the value: neither message alone holds a secret, both read together do."""

from __future__ import annotations

import pytest
from memdesk.core.guard.neighbours import redact_across

VALUE = "Vq9#mLx2!pRt7"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("FYI the prod db login is root", f" / {VALUE} until SSO lands."),
        ("the staging creds are deploy", f" / {VALUE}, rotate monthly"),
        ("数据库账号 root，密碼", f"：{VALUE}"),
        ("測試環境帳號 dbadmin，密码是", f" {VALUE}"),
    ],
)
def test_the_value_in_the_second_message_is_redacted(first: str, second: str) -> None:
    a, b, found = redact_across(first, second)
    assert found >= 1
    assert VALUE not in a + b


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Set the username in the config file", " then restart the service please"),
        ("The login page lives in web/auth", " / LoginForm.tsx handles the submit"),
    ],
)
def test_ordinary_neighbours_are_left_alone(first: str, second: str) -> None:
    assert redact_across(first, second) == (first, second, 0)
