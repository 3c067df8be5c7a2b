"""The exact-law oracle: closed forms and enumerated laws of what a correct implementation
emits, the tiny models they are enumerated on, and the statistical tests that compare."""
