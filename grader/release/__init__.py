"""What the course hands its learners, built from the reference: ``lessons`` (``lessons.py``)."""
