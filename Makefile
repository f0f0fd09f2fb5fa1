# Two commands on a fresh machine:  make demo   and   make test
# Each creates the virtual environment, installs multitest and the system
# programs it needs (Graphviz `dot`; Chromium for the report test; R with coin and
# exactRankTests, which compute the reference values again; a minimal TeX and pdftotext
# for the LaTeX tables) when missing.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
APT    := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends

.PHONY: demo test docs bench clean system-graphviz system-chromium system-r system-tex

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# Installs Debian packages when their program is missing (or the check given as a third
# argument fails) and we are root; otherwise says what is missing (the code degrades:
# DOT-only output, skipped browser and R tests).
define ensure
	@if ! $(or $(3),command -v $(1)) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing $(2) (for $(1))"; \
	    (apt-get update -qq && $(APT) $(2)) >/dev/null || { echo "could not install $(2)" >&2; exit 1; }; \
	  else echo "warning: '$(1)' not found (or $(2) incomplete) and not root: install $(2) yourself" >&2; fi; \
	fi
endef

system-graphviz:
	$(call ensure,dot,graphviz)

system-chromium:
	$(call ensure,chromium,chromium fonts-dejavu-core)

# tests/test_r_references.py runs the R scripts beside the fixtures again.
system-r:
	$(call ensure,Rscript,r-base-core r-cran-coin r-cran-exactranktests,Rscript -e 'library(coin); library(exactRankTests)')

# tests/test_latex.py compiles tables.tex (booktabs; TikZ for the CD diagrams) with pdflatex
# and reads the PDF back with pdftotext.
system-tex:
	$(call ensure,pdflatex,texlive-latex-base texlive-latex-recommended texlive-pictures poppler-utils,{ command -v pdflatex && command -v pdftotext && kpsewhich booktabs.sty tikz.sty; })

demo: $(VENV)/.installed system-graphviz
	$(VENV)/bin/multitest demo --out demo-output --format svg --report

test: $(VENV)/.installed system-graphviz system-chromium system-r system-tex
	$(VENV)/bin/lint-imports
	$(MAKE) docs
	$(PY) -m pytest -q -W error::RuntimeWarning

# The user documentation and the API reference; every Sphinx warning is an error
# (-E: read every page again, so that warnings of unchanged pages are reported too).
docs: $(VENV)/.installed
	$(VENV)/bin/sphinx-build -E -W --keep-going -q -b html docs docs/_build/html

bench: $(VENV)/.installed
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache docs/_build
