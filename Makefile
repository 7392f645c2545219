# make bench [CASES=regex,...] [MODES=eager,compile,max-autotune] [PROFILE=1]; make chart [RESULTS=file.json]
PYTHON ?= python3
CASES ?=
MODES ?= eager,compile
RESULTS ?=

.PHONY: bench chart test demo

bench:
	$(PYTHON) bench/suite.py --modes $(MODES) $(if $(CASES),--cases $(CASES)) $(if $(PROFILE),--profile)

chart:
	$(PYTHON) bench/chart.py $(RESULTS)

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh
