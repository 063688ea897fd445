"""``python -m ethersim``: the ``ethersim`` command."""

from ethersim._entry import main

main()
