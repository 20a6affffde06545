"""Candidate models for the meaning stage, compared by bench/guard_meaning_methods.py.

Each takes centred e5 vectors of units and their labels for two heads (passages, single
sentences; NaN: not taught) and gives a score per unit and head (higher: more like an
attack; any monotone scale, the cut-offs are chosen by rank).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
from train_guard_meaning import fit_heads


class Model(Protocol):
    def fit(self, x: np.ndarray, y: np.ndarray) -> None: ...

    def scores(self, x: np.ndarray) -> np.ndarray: ...


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p / (1 - p))


class Logistic:
    """The shipped method: an L2 logistic regression per head (Newton steps)."""

    def __init__(self, l2: float = 0.03) -> None:
        self.l2 = l2

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        self.coef, self.bias = fit_heads(x, y, self.l2)

    def scores(self, x: np.ndarray) -> np.ndarray:
        return x @ self.coef + self.bias  # logits: the same ranks as probabilities


def class_weights(y: np.ndarray) -> np.ndarray:
    """Per unit and head: classes weighted to equal mass, 0 where not taught."""
    w = np.zeros_like(y)
    for k in range(y.shape[1]):
        taught = ~np.isnan(y[:, k])
        pos = taught & (y[:, k] == 1)
        neg = taught & (y[:, k] == 0)
        w[pos, k] = 0.5 / max(pos.sum(), 1)
        w[neg, k] = 0.5 / max(neg.sum(), 1)
    return w


class MLP:
    """One hidden layer (tanh) shared by the two heads, fitted by L-BFGS on the
    class-weighted cross-entropy with L2 on the weights; `seeds` nets averaged (logits)."""

    def __init__(self, hidden: int = 64, l2: float = 1e-3, seeds: int = 1, iters: int = 200):
        self.hidden, self.l2, self.seeds, self.iters = hidden, l2, seeds, iters

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        from scipy.optimize import minimize  # noqa: PLC0415 - training only (guard-training)

        self.scale = 1.0 / float(x.std())
        xs = (x * self.scale).astype(np.float32)
        w = class_weights(y).astype(np.float32)
        yy = np.nan_to_num(y).astype(np.float32)
        d, h = x.shape[1], self.hidden
        self.nets = []
        for seed in range(self.seeds):
            rng = np.random.default_rng(seed)
            theta0 = np.concatenate(
                [
                    rng.normal(0, 1 / np.sqrt(d), d * h),
                    np.zeros(h),
                    rng.normal(0, 1 / np.sqrt(h), h * 2),
                    np.zeros(2),
                ]
            )

            def unpack(t: np.ndarray) -> tuple[np.ndarray, ...]:
                w1 = t[: d * h].reshape(d, h)
                b1 = t[d * h : d * h + h]
                w2 = t[d * h + h : d * h + h + 2 * h].reshape(h, 2)
                return w1, b1, w2, t[-2:]

            def loss(t: np.ndarray) -> tuple[float, np.ndarray]:
                w1, b1, w2, b2 = unpack(t.astype(np.float32))
                hid = np.tanh(xs @ w1 + b1)
                z = hid @ w2 + b2
                p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
                bce = -(yy * np.log(p + 1e-12) + (1 - yy) * np.log(1 - p + 1e-12))
                value = float((w * bce).sum()) + 0.5 * self.l2 * (
                    float((w1**2).sum()) + float((w2**2).sum())
                )
                dz = w * (p - yy)
                gw2 = hid.T @ dz + self.l2 * w2
                gb2 = dz.sum(axis=0)
                da = (dz @ w2.T) * (1 - hid**2)
                gw1 = xs.T @ da + self.l2 * w1
                gb1 = da.sum(axis=0)
                return value, np.concatenate([gw1.ravel(), gb1, gw2.ravel(), gb2]).astype(
                    np.float64
                )

            found = minimize(
                loss, theta0, jac=True, method="L-BFGS-B", options={"maxiter": self.iters}
            )
            self.nets.append(unpack(found.x))

    def scores(self, x: np.ndarray) -> np.ndarray:
        xs = x * self.scale
        out = np.zeros((len(x), 2))
        for w1, b1, w2, b2 in self.nets:
            out += np.tanh(xs @ w1 + b1) @ w2 + b2
        return out / len(self.nets)


class Neighbours:
    """Nearest-neighbour margin: the mean cosine of the `k` closest taught attacks minus
    that of the `k` closest taught ordinary units, per head (vectors centred, then
    normalised)."""

    def __init__(self, k: int = 5) -> None:
        self.k = k

    @staticmethod
    def _norm(x: np.ndarray) -> np.ndarray:
        return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-9)

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        self.bank = self._norm(x).astype(np.float32)
        self.y = y

    def scores(self, x: np.ndarray) -> np.ndarray:
        sims = self._norm(x).astype(np.float32) @ self.bank.T
        out = np.zeros((len(x), 2))
        for head in range(2):
            att = self.y[:, head] == 1
            ordi = self.y[:, head] == 0
            top_a = np.partition(sims[:, att], -self.k, axis=1)[:, -self.k :].mean(axis=1)
            top_o = np.partition(sims[:, ordi], -self.k, axis=1)[:, -self.k :].mean(axis=1)
            out[:, head] = top_a - top_o
        return out


class Blend:
    """A sum of the members' standardised scores (each scaled by its spread on the
    training units): the logistic regression's view and another's, equally weighted
    unless `weights` says otherwise."""

    def __init__(self, members: list[Model], weights: list[float] | None = None) -> None:
        self.members = members
        self.weights = weights or [1.0] * len(members)

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        self.spread = []
        for m in self.members:
            m.fit(x, y)
            s = m.scores(x[:: max(1, len(x) // 2000)])
            self.spread.append(s.std(axis=0) + 1e-9)

    def scores(self, x: np.ndarray) -> np.ndarray:
        return sum(
            w * m.scores(x) / s
            for w, m, s in zip(self.weights, self.members, self.spread, strict=True)
        )


METHODS: dict[str, Callable[[], Model]] = {
    "logistic": Logistic,
    "logistic-l2-0.01": lambda: Logistic(0.01),
    "logistic-l2-0.1": lambda: Logistic(0.1),
    "mlp64": lambda: MLP(64, 1e-3),
    "mlp64-l2-1e-2": lambda: MLP(64, 1e-2),
    "mlp64-l2-1e-4": lambda: MLP(64, 1e-4),
    "mlp128x3": lambda: MLP(128, 1e-3, seeds=3),
    "mlp32": lambda: MLP(32, 1e-3),
    "knn5": lambda: Neighbours(5),
    "knn1": lambda: Neighbours(1),
    "knn10": lambda: Neighbours(10),
    "logistic+knn5": lambda: Blend([Logistic(), Neighbours(5)]),
    "logistic+mlp64": lambda: Blend([Logistic(), MLP(64, 1e-2)]),
}
