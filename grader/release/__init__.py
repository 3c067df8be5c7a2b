"""What the course hands out, built from the reference: ``lessons/`` (``lessons.py``), a
release for learners (``student.py``, from the course's files: ``course.py``; without solutions,
with the public reference ``public.py`` and the learners' README ``student_readme.md``) and a
Gradescope autograder (``autograder.py``, whose ``run_autograder`` runs ``gradescope.py``)."""
