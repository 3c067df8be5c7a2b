"""The one type of a law case: a setting whose draws a check tests against an exact law."""
from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class LawCase:
    """A setting a check draws from and tests against its exact law. A family's case adds
    the law's inputs as fields (grader/oracle/verifier_cases.py: a round's rows ``p``, ``q``).

    ``id`` names the case in code, where a spec or a test picks it: stable, never shown.
    ``label`` is what learners read, in the names of the case's properties; it also keys the
    seeds of the case's draws, so changing it changes the draws. ``draws``: the draws its law
    tests take by default. Cases compare by identity (``eq=False``), so that a law computed
    from one can be cached on it whatever arrays its inputs hold.
    """
    id: str
    label: str
    draws: int
