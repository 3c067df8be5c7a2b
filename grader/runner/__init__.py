"""The process that runs learner code: ``python -m grader.runner``, started by the decider.

It runs each exercise's check as it is written, calling the learner's functions, and
sends over a dedicated pipe, one JSON line at a time, everything the check learnt from
the learner's code: each function it looked up, each call's result (or the Stop that
ended it) with what the observers saw (grader/observers/observation.py), in order. It decides
nothing: the decider runs the same check on these records, without the learner's code,
and makes the verdict (grader/decider/). Its seeds come on standard input,
never on its command line; what the learner's code prints goes to a file the decider
opened and handed over as standard output and error (the runner names no file), and each
exercise's start and end records say where its part of that output lies.

Modules: ``__main__`` (the process: limits, the channel, the exercises in turn),
``record`` (``RecordingCheckRun``, the import of the learner's code, refusing
``solutions`` while grading), ``reference`` (the reference as sent while grading) and
``zygote`` (a warm runner: torch and transformers imported once, a child forked to run
each runner's checks).
"""
