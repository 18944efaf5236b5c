"""The fast GGUF header reader agrees with gguf.GGUFReader, and steps over arrays."""

import gguf
import pytest

from llamatest.models import catalog
from llamatest.models.ggufheader import Array, n_elements, read_header


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMATEST_CACHE", str(tmp_path))


@pytest.mark.parametrize("name", ["tiny", "tiny-reranker"])
def test_every_field_and_the_parameter_count_match_gguf_reader(name):
    path = catalog.resolve_model(name)
    reader, header = gguf.GGUFReader(str(path)), read_header(path)
    expected = {key: field.contents() for key, field in reader.fields.items() if not key.startswith("GGUF.")}
    assert set(header.fields) == set(expected)
    for key, value in expected.items():
        got = header.fields[key]
        assert (got.length if isinstance(got, Array) else got) == (len(value) if isinstance(value, list) else value)
    assert n_elements(header) == sum(int(tensor.n_elements) for tensor in reader.tensors)


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    path = tmp_path / "x.gguf"
    path.write_bytes(b"NOPE" + bytes(32))
    with pytest.raises(ValueError, match="is not a GGUF file"):
        read_header(path)
