"""The README's Python quick start runs and prints what it says."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_quick_start_runs(capsys):
    code = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    namespace = {}
    exec(compile(code, str(README), "exec"), namespace)
    printed = capsys.readouterr().out
    assert namespace["ranking"].final_order[0] == "5nn"
    assert "('5nn', 'c45', 'lnp', 'mlp', 'mdt', 'svl', 'sv2', 'svr')" in printed
    assert namespace["optdigits"].order[0] == "svr"
