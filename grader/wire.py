"""What crosses from the runner to the decider: plain data only, checked on arrival.

The runner runs the learner's code, so whatever it sends may be forged. A result is
encoded as JSON built from Python's plain types, tensors and numpy arrays (their bytes,
dtype, shape and device), and *handles* for anything else (a learner's object stays in
the runner; the decider gets a ``Remote`` stand-in with its type name and repr). Decoding
accepts nothing else: no pickle, no object of the learner's class, no ``__eq__`` of
theirs ever runs in the decider.

``digest`` names a call's arguments the same way in both processes, so that the decider
can tell that the runner answered the call the decider's own check made.
"""
import base64
import hashlib

import numpy as np
import torch

TENSOR_DTYPES = {str(d): d for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64,
                                      torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                      torch.bool)}
ARRAY_KINDS = "biuf"  # numpy bool, ints, unsigned ints and floats
MAX_DEPTH = 64


class WireError(ValueError):
    """A message from the runner that is not what the protocol allows."""


class Remote:
    """The decider's stand-in for an object that stays in the runner (the learner's
    function, class or instance, or a result that is not plain data)."""

    def __init__(self, handle: int, type_name: str, text: str, qualname: str = ""):
        self._handle, self._type_name, self._text = handle, type_name, text
        self.__qualname__ = self.__name__ = qualname or type_name

    def __getattr__(self, name: str) -> "RemoteAttribute":
        if name.startswith("__"):
            raise AttributeError(name)
        return RemoteAttribute(self, name)

    def __repr__(self) -> str:
        return self._text

    def __call__(self, *args, **kwargs):
        raise TypeError("the learner's code runs only in the runner: call it through check.call")


class RemoteAttribute(Remote):
    """``remote.name`` (a method of a learner's object), to be called through check.call."""

    def __init__(self, owner: Remote, name: str):
        super().__init__(owner._handle, "method", f"{owner!r}.{name}", f"{owner.__qualname__}.{name}")
        self._owner, self._name = owner, name


def remote_type(type_name: str) -> type:
    """A subclass of Remote named like the learner's type, so that messages built from
    ``type(result).__name__`` read the same in the decider as in one process."""
    name = type_name if type_name.isidentifier() else "object"
    return type(name, (Remote,), {})


# --- the runner's side ------------------------------------------------------------------
class Handles:
    """The runner's table of objects the decider knows only by number."""

    def __init__(self):
        self.objects: list = []
        self.numbers: dict[int, int] = {}

    def number(self, value) -> int:
        key = id(value)
        if key not in self.numbers:
            self.numbers[key] = len(self.objects)
            self.objects.append(value)  # kept alive, so that its id stays its own
        return self.numbers[key]


def encode(value, handles: Handles, depth: int = 0):
    """``value`` as JSON-able data; anything that is not plain data becomes a handle."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if np.isfinite(value) else {"float": repr(value)}
    if depth < MAX_DEPTH and kind in (list, tuple):
        items = [encode(v, handles, depth + 1) for v in value]
        return items if kind is list else {"tuple": items}
    if depth < MAX_DEPTH and kind is dict:
        return {"dict": [[encode(k, handles, depth + 1), encode(v, handles, depth + 1)]
                         for k, v in value.items()]}
    if isinstance(value, torch.Tensor) and str(value.dtype) in TENSOR_DTYPES and value.layout == torch.strided:
        return {"tensor": {"dtype": str(value.dtype), "shape": list(value.shape),
                           "device": str(value.device), "grad": value.requires_grad,
                           "data": base64.b64encode(tensor_bytes(value)).decode()}}
    if kind is np.ndarray and value.dtype.kind in ARRAY_KINDS:
        return {"array": {"dtype": value.dtype.str, "shape": list(value.shape),
                          "data": base64.b64encode(np.ascontiguousarray(value).tobytes()).decode()}}
    if isinstance(value, np.generic) and value.dtype.kind in ARRAY_KINDS and kind.__module__ == "numpy":
        return {"scalar": {"dtype": value.dtype.str, "data": base64.b64encode(value.tobytes()).decode()}}
    return {"remote": {"handle": handles.number(value), "type": type_name(value), "repr": safe_repr(value),
                       "qualname": str(getattr(value, "__qualname__", ""))[:200]}}


def tensor_bytes(tensor: torch.Tensor) -> bytes:
    """A tensor's values as bytes, bfloat16 (which numpy lacks) as its 16 bits. A subclass
    is read as a plain tensor: none of its methods run here."""
    data = tensor.detach().as_subclass(torch.Tensor).cpu().contiguous()
    return (data.view(torch.int16) if data.dtype == torch.bfloat16 else data).numpy().tobytes()


def type_name(value) -> str:
    try:
        return str(type(value).__name__)[:100]
    except Exception:  # a learner's metaclass may raise anything
        return "object"


def safe_repr(value) -> str:
    try:
        return str(repr(value))[:200]
    except Exception:
        return f"<{type_name(value)}>"


# --- the decider's side ------------------------------------------------------------------
def decode(data, remotes: dict[int, Remote], depth: int = 0):
    """The value ``encode`` described, checking every part; raises WireError otherwise."""
    if depth > MAX_DEPTH:
        raise WireError("nested too deep")
    if data is None or type(data) in (bool, int, str, float):
        return data
    if type(data) is list:
        return [decode(v, remotes, depth + 1) for v in data]
    if type(data) is not dict or len(data) != 1:
        raise WireError(f"unexpected {type(data).__name__}")
    (tag, body), = data.items()
    if tag == "float" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "tuple" and type(body) is list:
        return tuple(decode(v, remotes, depth + 1) for v in body)
    if tag == "dict" and type(body) is list:
        pairs = [decode(p, remotes, depth + 1) for p in body]
        if not all(type(p) is list and len(p) == 2 for p in pairs):
            raise WireError("a dict entry is not a pair")
        try:
            return {k: v for k, v in pairs}
        except TypeError as exc:  # an unhashable key
            raise WireError(str(exc)) from None
    if tag == "tensor":
        return decode_tensor(body)
    if tag == "array":
        return decode_array(body)
    if tag == "scalar":
        return decode_array({**body, "shape": []})[()]
    if tag == "remote":
        return decode_remote(body, remotes)
    raise WireError(f"unknown tag {tag!r}")


def _fields(body, names: dict) -> dict:
    if type(body) is not dict or set(body) != set(names):
        raise WireError(f"expected the fields {sorted(names)}")
    for name, kind in names.items():
        if type(body[name]) is not kind:
            raise WireError(f"field {name} is not a {kind.__name__}")
    return body


def _shape(shape: list) -> tuple[int, ...]:
    if not all(type(n) is int and n >= 0 for n in shape) or len(shape) > 16:
        raise WireError(f"bad shape {shape!r}")
    return tuple(shape)


def decode_tensor(body) -> torch.Tensor:
    body = _fields(body, {"dtype": str, "shape": list, "device": str, "grad": bool, "data": str})
    dtype = TENSOR_DTYPES.get(body["dtype"])
    if dtype is None:
        raise WireError(f"dtype {body['dtype']!r} is not allowed")
    shape = _shape(body["shape"])
    raw = bytearray(base64.b64decode(body["data"], validate=True))
    stored = torch.int16 if dtype == torch.bfloat16 else dtype
    if len(raw) != int(np.prod(shape, dtype=np.int64)) * torch.empty((), dtype=stored).element_size():
        raise WireError("tensor bytes do not match its shape")
    tensor = torch.frombuffer(raw, dtype=stored) if raw else torch.empty(0, dtype=stored)
    tensor = tensor.view(dtype).reshape(shape)
    device = torch.device(body["device"])
    if device.type == "cuda" and torch.cuda.is_available():
        tensor = tensor.to(device)
    elif device.type != "cpu":
        raise WireError(f"device {body['device']!r} is not available here")
    return tensor.requires_grad_() if body["grad"] and tensor.is_floating_point() else tensor


def decode_array(body) -> np.ndarray:
    body = _fields(body, {"dtype": str, "shape": list, "data": str})
    try:
        dtype = np.dtype(body["dtype"])
    except TypeError:
        raise WireError(f"bad dtype {body['dtype']!r}") from None
    if dtype.kind not in ARRAY_KINDS:
        raise WireError(f"dtype {dtype} is not allowed")
    shape = _shape(body["shape"])
    raw = base64.b64decode(body["data"], validate=True)
    if len(raw) != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise WireError("array bytes do not match its shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def decode_remote(body, remotes: dict[int, Remote]) -> Remote:
    body = _fields(body, {"handle": int, "type": str, "repr": str, "qualname": str})
    handle = body["handle"]
    if handle not in remotes:
        remotes[handle] = remote_type(body["type"][:100])(handle, body["type"][:100], body["repr"][:200],
                                                          body["qualname"][:200])
    return remotes[handle]


# --- naming a call's arguments alike in both processes -------------------------------------
def digest(value, handles: Handles | None = None) -> str:
    """A short name of ``value`` that the runner (with its handles) and the decider (with
    Remote stand-ins for the same objects) compute alike."""
    return hashlib.sha1(_describe(value, handles, 0).encode()).hexdigest()[:16]


def _describe(value, handles, depth) -> str:
    if depth > MAX_DEPTH:
        return "..."
    kind = type(value)
    if isinstance(value, Remote):
        return f"remote#{value._handle}" + (f".{value._name}" if isinstance(value, RemoteAttribute) else "")
    if handles is not None and id(value) in handles.numbers:
        return f"remote#{handles.numbers[id(value)]}"
    owner = getattr(value, "__self__", None)  # a bound method of a learner's object
    if handles is not None and owner is not None and id(owner) in handles.numbers:
        return f"remote#{handles.numbers[id(owner)]}.{getattr(value, '__name__', '')}"
    if value is None or kind in (bool, int, float, str):
        return repr(value)
    if kind in (list, tuple):
        return f"{kind.__name__}[" + ",".join(_describe(v, handles, depth + 1) for v in value) + "]"
    if kind is dict:
        return "{" + ",".join(f"{_describe(k, handles, depth + 1)}:{_describe(v, handles, depth + 1)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, torch.Tensor):
        return f"tensor({value.dtype},{list(value.shape)},{hashlib.sha1(tensor_bytes(value)).hexdigest()})"
    if isinstance(value, np.ndarray):
        return f"array({value.dtype},{value.shape},{hashlib.sha1(np.ascontiguousarray(value).tobytes()).hexdigest()})"
    if isinstance(value, torch.Generator):
        return f"generator({hashlib.sha1(value.get_state().numpy().tobytes()).hexdigest()})"
    if isinstance(value, torch.nn.Module):
        return f"{kind.__name__}({sum(p.numel() for p in value.parameters())})"
    index = getattr(value, "observer_index", None)
    if index is not None:
        return f"observer#{index}({kind.__name__})"
    if callable(value) and hasattr(value, "__qualname__"):
        return f"function({value.__qualname__})"
    return f"{kind.__module__}.{kind.__name__}"
