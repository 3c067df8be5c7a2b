"""The runner's records (grader/protocol.py): each message reads back as itself, and a forged
record is refused saying what was wrong."""
import json

import pytest

from grader import protocol
from grader.verdict import (ERROR, FAILED, LAW, Finding, FindingKind, LoadErrorKind, Status, Verdict, load_error_verdict,
                            to_json)

FINDING = Finding("law of token 1", "T=0.6", LAW, "too few", table=[["a", "b"]], p_value=0.01, draws=10)
MESSAGES = [
    protocol.Start("max_fn", 0),
    protocol.End("max_fn", 12, ("/course/solutions/residual.py",)),
    protocol.LoadError(kind="syntax", message="expected ':'", file="f.py", line="4"),
    protocol.FunctionAnswer("max_fn", "lessons/residual.py", {"remote": {"handle": 0, "type": "function",
                                                                       "repr": "<f>", "qualname": "max_fn"}}),
    protocol.FunctionAnswer("max_fn", "lessons/residual.py", None),
    protocol.CallAnswer(3, "0123456789abcdef", {"0": [1, 2]}, result=[1, {"tuple": [2]}]),
    protocol.CallAnswer(4, "0123456789abcdef", {}, stop=protocol.StopRecord(FAILED, "wrong", "", (FINDING,))),
    protocol.ObserverEntry(0, {"forward": {"fed": 1, "cached": 0}}),
    protocol.Crashed("Traceback ..."),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_each_message_reads_back_as_itself(message):
    assert protocol.decode(json.loads(json.dumps(message.record(), allow_nan=False))) == message


@pytest.mark.parametrize("record, said", [
    (["start"], "expected a record (a JSON object)"),
    ({"hello": 1}, "expected a record of the runner's protocol"),
    ({"malformed": "not json"}, "expected a record of the runner's protocol"),
    ({"start": "max_fn"}, "a start record must have the fields ['output_at', 'start']"),
    ({"start": "max_fn", "output_at": -1}, "a start record's output_at is not a byte offset"),
    ({"start": "max_fn", "output_at": True}, "a start record's output_at is not a byte offset"),
    ({"start": 3, "output_at": 0}, "a start record does not name its exercise"),
    ({"end": "max_fn", "output_at": 1, "extra": 0}, "an end record must have the fields ['end', 'output_at']"),
    ({"function": "max_fn", "where": 5, "value": None}, "a function record's where is not text"),
    ({"function": "max_fn", "value": None}, "a function record must have the fields"),
    ({"call": -1, "digest": "d", "result": 1}, "a call record's index is not a count"),
    ({"call": 0, "digest": 5, "result": 1}, "a call record's digest is not a short text"),
    ({"call": 0, "digest": "d" * 65, "result": 1}, "a call record's digest is not a short text"),
    ({"call": 0, "digest": "d", "observed": [], "result": 1}, "a call record's observed states are not a record"),
    ({"call": 0, "digest": "d"}, "call 0 has no result"),
    ({"call": 0, "digest": "d", "result": 1, "stop": {}}, "call 0 has both a result and a stop"),
    ({"call": 0, "digest": "d", "stop": {"status": "passed", "summary": "", "findings": []}},
     "a Stop is malformed (status 'passed')"),
    ({"call": 0, "digest": "d", "stop": {"status": ERROR, "summary": "", "findings": [{"name": "p"}]}},
     "a Stop is malformed (a finding is not a record"),
    ({"call": 0, "digest": "d", "stop": {"status": ERROR, "findings": [None] * 201}}, "a Stop is malformed (findings"),
    ({"observer": "0", "entry": {}}, "an observer's entry is malformed (observer 0 is not an index)"),
    ({"entry": {}}, "an observer's entry record must have the fields"),
    ({"load_error": {"kind": "exploded", "message": "m"}},
     "a load error's kind must be one of ['syntax', 'missing', 'raised'], got 'exploded'"),
    ({"load_error": {"kind": "Syntax"}}, "a load error's kind must be one of"),
    ({"load_error": {"kind": ["syntax"]}}, "a load error's kind must be one of"),
    ({"load_error": {"message": "no kind"}}, "a load error's kind must be one of"),
    ({"load_error": 7}, "a load error must be a record (a JSON object), got '7'"),
])
def test_a_forged_record_is_refused_saying_what_was_wrong(record, said):
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.decode(record)
    assert said in str(refused.value)


@pytest.mark.parametrize("record, said", [({"ready": True}, protocol.Ready()), ({"exited": 137}, protocol.Exited(137)),
                                           ({"ready": 1}, None), ({"exited": 256}, None), ({"exited": True}, None),
                                           ({"ready": True, "exited": 0}, None), (["ready"], None)])
def test_the_zygote_says_ready_or_exited_and_nothing_else(record, said):
    if said is not None:
        assert protocol.zygote_message(json.loads(json.dumps(said.record()))) == said == protocol.zygote_message(record)
        return
    with pytest.raises(protocol.ProtocolError, match="from the zygote"):
        protocol.zygote_message(record)


def test_a_forged_load_error_is_still_worded_as_one():
    """Of a known kind, its values are cut to text (the verdict words whatever was sent), the rest dropped."""
    error = protocol.decode({"load_error": {"kind": "raised", "message": ["x"] * 5000, "other": 1}})
    assert error == protocol.LoadError(kind="raised", message=str(["x"] * 5000)[:protocol.MAX_LOAD_ERROR_TEXT])


@pytest.mark.parametrize("kind", list(LoadErrorKind), ids=str)
def test_a_load_errors_kind_is_an_enum_written_as_its_text(kind):
    """Each kind travels as its value and reads back as its member, which decides the wording."""
    written = json.loads(json.dumps(protocol.LoadError(kind, message="m", file="f.py", line="4").record()))
    assert written["load_error"]["kind"] == kind.value and type(written["load_error"]["kind"]) is str
    error = protocol.decode(written)
    assert error.kind is kind
    said = {LoadErrorKind.SYNTAX: "your code has a syntax error in f.py, line 4: m. Fix it, then check again.",
            LoadErrorKind.MISSING: "m",
            LoadErrorKind.RAISED: "importing your code failed with m. Code at the top level of a module runs on "
                                  "import: keep it to definitions."}[kind]
    assert load_error_verdict("max_fn", 0, error).summary == said
    with pytest.raises(ValueError):
        protocol.LoadError(kind="exploded")


def test_an_end_record_keeps_only_short_paths():
    end = protocol.decode({"end": "max_fn", "output_at": 0, "reference_opened": ["a" * 400, 5, *["b"] * 30]})
    assert end.reference_opened == ("a" * protocol.MAX_PATH, *["b"] * (protocol.MAX_PATHS - 1))


def test_statuses_and_kinds_are_enums_written_as_their_text():
    verdict = Verdict("max_fn", "failed", "s", 0, [Finding("p", "", "law", "m")])
    assert verdict.status is Status.FAILED and verdict.findings[0].kind is FindingKind.LAW
    assert f"{verdict.status}: {verdict.findings[0].kind:>4}" == "failed:  law"
    written = json.loads(to_json([verdict]))["checks"][0]
    assert (written["status"], written["findings"][0]["kind"]) == ("failed", "law")
    with pytest.raises(ValueError):
        Verdict("max_fn", "passd", "s", 0)
    with pytest.raises(ValueError):
        Finding("p", "", "statistical", "m")


def test_the_decider_says_a_load_error_of_an_unknown_kind_was_forged():
    """Refused by the decoder, the record reaches the replay, whose verdict says what was wrong;
    a known kind is worded as the learner's load error."""
    from grader import exercises
    from grader.decider import run

    class Records:
        def __init__(self, *records):
            self.records = list(records)

        def peek(self):
            return self.records[0]

        def receive(self):
            return self.records.pop(0)

    forged, _ = run._decide(exercises.get("max_fn"), 0, Records({"load_error": {"kind": "exploded", "message": "m"}}))
    assert forged.status == ERROR and "sent the grader something it never asks for: a load error's kind must be " \
        "one of ['syntax', 'missing', 'raised'], got 'exploded'" in forged.summary, forged.summary
    worded, _ = run._decide(exercises.get("max_fn"), 0, Records({"load_error": {"kind": "syntax", "file": "f.py",
                                                                                "line": 3, "message": "bad"}}))
    assert worded.summary == "your code has a syntax error in f.py, line 3: bad. Fix it, then check again."
