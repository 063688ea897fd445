"""The static figures of a run's series (matplotlib): PNG and SVG files for
``figures/``, which other tools read. Drawn in memory; the report writes them."""

from __future__ import annotations

import io

from ethersim.report.series import FigureSpec

__all__ = ["draw"]


def draw(spec: FigureSpec) -> dict[str, bytes]:
    """``spec`` drawn as ``{"STEM.png": ..., "STEM.svg": ...}``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(spec.panels)
    fig, axes = plt.subplots(
        n, 1, figsize=(9, 1.9 * n + 0.6), layout="constrained", sharex=True, squeeze=False
    )
    try:
        for ax, panel in zip(axes[:, 0], spec.panels, strict=True):
            for trace in panel.traces:
                ax.step(trace.t, trace.y, where="post", lw=0.9, label=trace.name)
            if panel.log:
                ax.set_yscale("log")
            ax.set_ylabel(panel.label, fontsize=8)
            if len(panel.traces) > 1:
                ax.legend(fontsize=8)
        axes[-1, 0].set_xlabel("simulated time (s)")
        fig.suptitle(spec.title, fontsize=10)
        out = {}
        for ext, dpi in (("png", 110), ("svg", 72)):
            buffer = io.BytesIO()
            fig.savefig(buffer, format=ext, bbox_inches="tight", dpi=dpi)
            out[f"{spec.stem}.{ext}"] = buffer.getvalue()
        return out
    finally:
        plt.close(fig)
