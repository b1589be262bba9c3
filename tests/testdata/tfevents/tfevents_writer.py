#!/usr/bin/env python3
"""A TensorFlow-free writer of TensorFlow event files, for hpt's tests.

Encodes tensorflow.Event protos by hand (the protobuf wire format) and
frames them as TFRecords with masked CRC32C, as tf.summary and
torch.utils.tensorboard do:

    uint64 length, uint32 masked_crc32c(length), data, uint32 masked_crc32c(data)

Importable (EventFileWriter) and a command line for the C++ tests:

    tfevents_writer.py FILE EVENTS_JSON

EVENTS_JSON is a list of {"step": 1, "wall_time": 1.5, "values": [{"tag":
"loss", "value": 0.5, "as": "simple"}]}; "as" is one of simple (the TF1
Summary.Value.simple_value), float (TF2's tf.summary.scalar: a rank-0
DT_FLOAT tensor, packed float_val), double (DT_DOUBLE, double_val),
content (DT_FLOAT in tensor_content), vector (a DT_FLOAT tensor of shape [2],
no scalar), image (a Summary.Image: no scalar). The file starts with TF's
file_version event ("brain.Event:2").
"""
import json
import struct
import sys
import time


def _crc32c_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data):
    """One TFRecord holding `data`."""
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked_crc(length)) + data +
            struct.pack("<I", masked_crc(data)))


def _varint(n):
    n &= (1 << 64) - 1  # negative int64s take ten bytes, as protobuf writes them
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire_type):
    return _varint((field << 3) | wire_type)


def _bytes(field, data):
    return _key(field, 2) + _varint(len(data)) + data


def _tensor(kind, value):
    if kind == "float":  # dtype DT_FLOAT, shape [], float_val packed
        return _key(1, 0) + _varint(1) + _bytes(2, b"") + _bytes(5, struct.pack("<f", value))
    if kind == "double":  # DT_DOUBLE, double_val packed
        return _key(1, 0) + _varint(2) + _bytes(2, b"") + _bytes(6, struct.pack("<d", value))
    if kind == "content":  # DT_FLOAT, shape [1], tensor_content
        shape = _bytes(2, _key(1, 0) + _varint(1))
        return _key(1, 0) + _varint(1) + _bytes(2, shape) + _bytes(4, struct.pack("<f", value))
    if kind == "vector":  # DT_FLOAT, shape [2]: not a scalar
        shape = _bytes(2, _key(1, 0) + _varint(2))
        return (_key(1, 0) + _varint(1) + _bytes(2, shape) +
                _bytes(5, struct.pack("<ff", value, value)))
    raise ValueError("unknown tensor kind " + kind)


def summary_value(tag, value, kind="simple"):
    out = _bytes(1, tag.encode())
    if kind == "simple":
        out += _key(2, 5) + struct.pack("<f", value)
    elif kind == "image":  # Summary.Image (field 4): height 1, width 1
        out += _bytes(4, _key(1, 0) + _varint(1) + _key(2, 0) + _varint(1))
    else:
        # TF2 marks scalars with the "scalars" plugin (metadata, field 9).
        out += _bytes(9, _bytes(1, _bytes(1, b"scalars")))
        out += _bytes(8, _tensor(kind, value))
    return out


def event(step, values=(), wall_time=None, file_version=None):
    """A serialized tensorflow.Event: values are (tag, value, kind)."""
    out = _key(1, 1) + struct.pack("<d", time.time() if wall_time is None else wall_time)
    if step:
        out += _key(2, 0) + _varint(step)
    if file_version is not None:
        out += _bytes(3, file_version.encode())
    if values:
        summary = b"".join(_bytes(1, summary_value(*v)) for v in values)
        out += _bytes(5, summary)
    return out


class EventFileWriter:
    """Appends events to FILE, each flushed at once (a reader follows)."""

    def __init__(self, path):
        self._file = open(path, "ab")
        self.write(event(0, file_version="brain.Event:2"))

    def write(self, data):
        self._file.write(record(data))
        self._file.flush()

    def scalar(self, tag, value, step, kind="simple"):
        self.write(event(step, [(tag, value, kind)]))

    def close(self):
        self._file.close()


def main(argv):
    path, spec = argv[1], json.loads(argv[2])
    writer = EventFileWriter(path)
    for e in spec:
        values = [(v["tag"], v.get("value", 0.0), v.get("as", "simple"))
                  for v in e.get("values", [])]
        writer.write(event(e.get("step", 0), values, e.get("wall_time")))
    writer.close()


if __name__ == "__main__":
    main(sys.argv)
