"""The notebooks' figures and pictures, one call each, so that a lesson's cell shows what it
measures and not how it is drawn: ``plots`` (matplotlib figures), ``round_colours`` (a run's
tokens coloured by what made them), ``batch_picture`` (lesson 8's cache columns) and
``sweep`` (`grader bench --plot`'s γ sweep). They draw what grader/bench measures; nothing
here times anything."""
