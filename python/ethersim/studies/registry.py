"""The studies ``ethersim reproduce`` knows: one line each, the one place that lists them.

Each line names a study's command and the module whose ``STUDY`` (a
:class:`~ethersim.studies.study.Study`) it is. The command line builds ``reproduce NAME``
from it and runs ``reproduce all`` in its order; a module is imported only when its study
is asked for, so ``ethersim run`` loads none of them.
"""

from __future__ import annotations

import importlib
from typing import Any

from ethersim.studies.study import Study

__all__ = ["NAMES", "STUDIES", "study"]

#: Every study, by command name: the module that defines its ``STUDY``, in the order
#: ``ethersim reproduce all`` runs them.
STUDIES = {
    "rps": "ethersim.studies.rps",
    "rps-apps": "ethersim.studies.rps_apps",
    "eee-pingpong": "ethersim.studies.eee_pingpong",
    "eee-hpc": "ethersim.studies.eee_hpc",
    "csma": "ethersim.studies.csma",
    "capacity-scaling": "ethersim.studies.capacity_scaling",
}

#: Every study's name, in the order ``ethersim reproduce all`` runs them.
NAMES = tuple(STUDIES)


def study(name: str) -> Study[Any, Any]:
    """The study ``name``: its command, runs, files and published findings. Raises
    ``KeyError`` for a name not registered, ``TypeError`` for a module whose ``STUDY`` is
    not a :class:`Study` of that name."""
    found = importlib.import_module(STUDIES[name]).STUDY
    if not isinstance(found, Study) or found.name != name:
        raise TypeError(f"{STUDIES[name]}.STUDY is not the Study {name!r}: {found!r}")
    return found
