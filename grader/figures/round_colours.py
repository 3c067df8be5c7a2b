"""Lesson 3's picture of a run: its output, each token coloured by what made it (an
accepted draft, a correction after a rejection, the bonus, the target alone), rejected
drafts struck through, from the rounds ``grader.observers.trace.rounds`` finds."""
import html

from grader.observers.trace import Round

KIND_COLOURS = {"accepted": "#b7e4c7", "correction": "#ffd6a5", "bonus": "#a0c4ff",
                "target": "#e5e5e5", "rejected": "#ffadad"}
KIND_MEANING = {"accepted": "draft accepted", "rejected": "draft rejected",
                "correction": "correction (after a rejection)",
                "bonus": "bonus (every draft accepted)", "target": "sampled by the target alone"}


def to_html(found: list[Round], decode, prompt_text: str = "") -> str:
    """The output, each token coloured by its kind; rejected drafts struck through."""
    def span(text: str, kind: str, strike: bool = False) -> str:
        style = f"background:{KIND_COLOURS[kind]};" + ("text-decoration:line-through;" if strike else "")
        return f'<span title="{KIND_MEANING[kind]}" style="{style}">{html.escape(text)}</span>'

    parts = [html.escape(prompt_text)]
    for r in found:
        for i, (token, kind) in enumerate(zip(r.tokens, r.kinds)):
            if kind == "correction":
                parts.append(span(decode([r.drafts[i]]), "rejected", strike=True))
            parts.append(span(decode([token]), kind))
    legend = " ".join(span(KIND_MEANING[k], k, k == "rejected") for k in KIND_COLOURS)
    return (f'<div style="font-family:monospace;white-space:pre-wrap;line-height:1.6">'
            f'{"".join(parts)}</div><div style="margin-top:6px">{legend}</div>')
