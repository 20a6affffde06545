from memdesk.cli.main import run

run()
