"""The interactive figures of a report (plotly): zoom, pan, hover, in a page that works
offline. plotly.js is embedded once per page (:func:`plotly_js`, about 4.8 MB); each
figure is its JSON, which a few lines of the page's own script hand to
``Plotly.newPlot``. Traces longer than :data:`MAX_POINTS` are thinned for the page
(:func:`ethersim.report.series.thin`); the Parquet files and the static figures hold
every point."""

from __future__ import annotations

from ethersim.errors import InternalError
from ethersim.report.series import FigureSpec, thin

__all__ = ["MAX_POINTS", "figure_json", "plotly_js"]

#: Points per trace drawn in the page, at most about: enough for any screen's width
#: several times over, and a page that opens in a second.
MAX_POINTS = 5000


def figure_json(spec: FigureSpec) -> str:
    """``spec`` as plotly's figure JSON, safe inside a ``<script>`` element (plotly
    writes ``<``, ``>`` and ``/`` in strings as escapes)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    n = len(spec.panels)
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.06 if n > 1 else 0)
    for row, panel in enumerate(spec.panels, start=1):
        for trace in panel.traces:
            shown = thin(trace, MAX_POINTS)
            fig.add_trace(
                go.Scatter(
                    x=shown.t,
                    y=shown.y,
                    name=trace.name,
                    mode="lines",
                    line={"shape": "hv", "width": 1.2},
                    showlegend=len(panel.traces) > 1,
                    hovertemplate=f"{trace.name}: %{{y:.4g}}<br>t = %{{x:.6g}} s<extra></extra>",
                ),
                row=row,
                col=1,
            )
        fig.update_yaxes(
            title_text=panel.label, type="log" if panel.log else "linear", row=row, col=1
        )
    fig.update_xaxes(title_text="simulated time (s)", row=n, col=1)
    fig.update_layout(
        title={"text": spec.title, "font": {"size": 14}},
        height=190 * n + 110,
        margin={"l": 70, "r": 20, "t": 50, "b": 45},
        template="plotly_white",
        hovermode="x",
    )
    # plotly escapes these already; kept so that no future writer can end the element.
    text: str = fig.to_json()
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def plotly_js() -> str:
    """plotly.js, the version the installed plotly package ships, for an inline
    ``<script>`` element (no CDN: the page works offline)."""
    from plotly.offline import get_plotlyjs

    js: str = get_plotlyjs()
    # An inline script ends at the first "</script"; plotly.js holds none, and must not.
    if "</script" in js.lower():
        raise InternalError("plotly.js holds '</script'; it cannot be embedded inline")
    return js
