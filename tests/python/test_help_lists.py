"""The Python half of tests/cli/test_help_lists.c (which cannot load the
library into python: the sanitizer build runs it): the help of
dpgossip.account, audit and train lists exactly the schedule kinds and the
trust models of the command's help, which test_help_lists.c holds to the
tables, so a kind or a model added to its table needs no Python edit."""
import re

import dpgossip


def _help_line(cli, cmd, option):
    line = next(l for l in cli.ok(cmd, "--help").splitlines() if option in l)
    return line


def _words(text):
    return " ".join(text.split())


def test_schedule_kinds_listed(cli):
    line = _help_line(cli, "account", "--schedule=SPEC")
    kinds = line.split("(default static): ", 1)[1]
    assert "churn:" in kinds and "matching" in kinds
    for fn in (dpgossip.account, dpgossip.audit, dpgossip.train):
        doc = _words(fn.__doc__)
        assert "@SCHEDULE_KINDS@" not in doc
        assert _words(kinds) in doc, f"{fn.__name__}'s help lacks the schedule kinds {kinds}"


def test_trust_models_listed(cli):
    line = _help_line(cli, "account", "--trust=")
    models = re.search(r"Trust model: (.*), or a comma-separated list", line).group(1)
    assert models.count(",") + models.count(" or ") >= 2
    for fn in (dpgossip.account, dpgossip.audit, dpgossip.train):
        doc = _words(fn.__doc__)
        assert "@TRUST_MODELS@" not in doc
        assert models in doc, f"{fn.__name__}'s help lacks the trust models {models}"
