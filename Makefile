# Everyday targets. `make test` is the README's test command.
.PHONY: build test lint bench schema

build:
	pip install .

test:
	pip install ".[test]" && cargo test && pytest

lint:
	cargo clippy --workspace --all-targets -- -D warnings
	cargo fmt --all -- --check
	ruff check python tests
	ruff format --check python tests
	mypy
	python -m mypy.stubtest ethersim._core

bench:
	cargo bench -p ethersim-core
	ethersim bench
