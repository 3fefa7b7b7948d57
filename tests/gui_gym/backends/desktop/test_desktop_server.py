"""Our server's HTTP layer without a display: the token check, routing, replies, and the
request body parsers (multipart as OSWorld's client sends it)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from gui_gym.backends.desktop.client import Endpoint, ServerClient, ServerError
from gui_gym.backends.desktop.inside.server import Reply, _LoopbackServer, _Request, make_handler


@pytest.fixture
def served():
    uploads: dict[str, bytes] = {}

    def upload(request):
        fields = request.multipart()
        uploads[fields["file_path"].decode()] = fields["file_data"]
        return "text/plain", b"File Uploaded"

    def boom(request):
        raise RuntimeError("kaput")

    def refuse(request):
        raise Reply(409, {"why": "busy"})
    fake = SimpleNamespace(token="s3cret", routes={
        ("POST", "/setup/upload"): upload, ("GET", "/boom"): boom, ("GET", "/refuse"): refuse,
        ("POST", "/echo"): lambda request: request.json(), ("POST", "/form"): lambda request: request.form()})
    server = _LoopbackServer(("127.0.0.1", 0), make_handler(fake))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield ServerClient(Endpoint(port=server.server_address[1], token="s3cret")), uploads, server.server_address[1]
    server.shutdown()
    server.server_close()


def test_token_and_routing(served):
    client, _, port = served
    assert client.call_json("POST", "/echo", json_body={"a": [1]}) == {"a": [1]}
    assert client.call_json("POST", "/form", form={"file_path": "/a b"}) == {"file_path": "/a b"}
    with pytest.raises(ServerError, match=r"HTTP 401"):
        ServerClient(Endpoint(port=port, token="guess")).call("POST", "/echo", json_body={})
    with pytest.raises(ServerError, match=r"GET /nowhere -> HTTP 404: no endpoint GET /nowhere"):
        client.call("GET", "/nowhere")
    with pytest.raises(ServerError, match=r"HTTP 500: RuntimeError: kaput"):
        client.call("GET", "/boom")
    with pytest.raises(ServerError, match=r"HTTP 409: \{\"why\": \"busy\"\}"):
        client.call("GET", "/refuse")
    with pytest.raises(ServerError, match=r"HTTP 400: expected a JSON body"):
        client.call("POST", "/echo", body=b"{", content_type="application/json")


def test_multipart_upload_from_our_client(served):
    client, uploads, _ = served
    client.upload("/home/user/ä.bin", bytes(range(256)) * 3)
    assert uploads == {"/home/user/ä.bin": bytes(range(256)) * 3}


def test_multipart_needs_the_right_content_type():
    with pytest.raises(Reply, match="expected multipart/form-data, received 'text/plain'"):
        _Request({"Content-Type": "text/plain"}, b"").multipart()
