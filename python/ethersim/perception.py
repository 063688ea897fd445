"""How long a person feels a wait to be: the response-time limits of human-computer
interaction, for page loads.

Nielsen (Usability Engineering, 1993, §5.5 "Response Times"), after Miller (1968) and
Card, Robertson and Mackinlay (1991), gives three limits: about 0.1 s, under which a
response feels instantaneous; about 1 s, under which the user's flow of thought stays
uninterrupted although the delay is noticed; about 10 s, beyond which the user's
attention leaves the dialogue. A page-load time is placed in the band these limits
bound; a change a person would notice moves a load into another band.
"""

from __future__ import annotations

__all__ = ["LIMITS_S", "band", "band_index"]

#: Nielsen's response-time limits, s: instantaneous, flow of thought, attention.
LIMITS_S = (0.1, 1.0, 10.0)

#: The bands the limits bound, in words, fastest first.
_BANDS = (
    "feels instantaneous",
    "flow of thought kept",
    "attention kept",
    "attention lost",
)


def band_index(seconds: float) -> int:
    """The band of a wait of ``seconds``: 0 up to 0.1 s, 1 up to 1 s, 2 up to 10 s, 3
    beyond (a wait at a limit is within it)."""
    return sum(seconds > limit for limit in LIMITS_S)


def band(seconds: float) -> str:
    """The band of a wait of ``seconds``, in words."""
    return _BANDS[band_index(seconds)]
