"""The colours of every picture dpdt draws, matplotlib's and the explorer page's alike.

Okabe and Ito's palette, which readers of any colour vision tell apart. The page receives
these lists with its data, so that a class or a curve has one colour wherever it is drawn.
"""

# Classes, in the order of ``classes_``: leaves, class bars and legends.
CLASS_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442",
                 "#000000")

# The series of a picture of the front.
SERIES_COLOURS = {"front": "#0072B2", "test": "#D55E00", "cart": "#CC79A7", "chosen": "#F0E442"}

# Validation curves, one per depth limit, in colours none of the series has; past the last,
# the colours come round again on dashed lines (see :func:`validation_style`).
VALIDATION_COLOURS = ("#009E73", "#E69F00", "#56B4E9", "#000000", "#999999")


def validation_style(k):
    """Return (colour, dashed) of the k-th validation curve: no two curves share both."""
    return VALIDATION_COLOURS[k % len(VALIDATION_COLOURS)], k >= len(VALIDATION_COLOURS)


def class_colour(k):
    """Return the colour of the k-th class."""
    return CLASS_COLOURS[k % len(CLASS_COLOURS)]


def page_colours():
    """Return the palette as the explorer page's data holds it."""
    return {"classes": list(CLASS_COLOURS), "series": dict(SERIES_COLOURS),
            "validation": list(VALIDATION_COLOURS)}
