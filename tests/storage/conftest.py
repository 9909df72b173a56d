"""Storage as the tests start it on 127.0.0.1: moto's S3 server (the real protocol, through
s3fs), IAM users for denied reads, a proxy that cuts a download, fsspec's memory filesystem."""

from __future__ import annotations

import importlib
import json
import logging
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

#: fsspec.registry is the registry's mapping: the module is imported by name.
REGISTRY = importlib.import_module("fsspec.registry")


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server in a thread of this process, for the whole session."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture(autouse=True)
def _dummy_aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    # Never whoever runs the tests' own credentials, config or endpoint.
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)


@dataclass(frozen=True)
class Bucket:
    """A fresh bucket of the test's own, and an s3fs filesystem to set it up and look in it."""

    name: str
    endpoint: str
    fs: Any

    def url(self, key: str = "") -> str:
        return f"s3://{self.name}/{key}"

    @property
    def options(self) -> dict[str, Any]:
        """The storage options that reach it."""
        return {"endpoint_url": self.endpoint}

    @property
    def cli(self) -> list[str]:
        """The same, on the command line."""
        return ["--storage-option", f"endpoint_url={self.endpoint}"]

    def put(self, key: str, data: bytes) -> None:
        self.fs.pipe_file(f"{self.name}/{key}", data)

    def get(self, key: str) -> bytes:
        return bytes(self.fs.cat_file(f"{self.name}/{key}"))

    def objects(self) -> list[str]:
        self.fs.invalidate_cache()
        return sorted(p.removeprefix(f"{self.name}/") for p in self.fs.find(self.name))


@pytest.fixture
def bucket(s3_endpoint: str) -> Bucket:
    import s3fs

    fs = s3fs.S3FileSystem(endpoint_url=s3_endpoint, skip_instance_cache=True)
    name = f"logs-{uuid.uuid4().hex[:12]}"
    fs.mkdir(name)
    return Bucket(name, s3_endpoint, fs)


@dataclass(frozen=True)
class IamUser:
    """Credentials moto checks (signature and policy) once authorization is on."""

    key: str
    secret: str

    def cli(self, endpoint: str) -> list[str]:
        return [
            *("--storage-option", f"endpoint_url={endpoint}"),
            *("--storage-option", f"key={self.key}"),
            *("--storage-option", f"secret={self.secret}"),
        ]


#: The operations' own names that moto (from 5.2.6) checks where AWS checks the action
#: that covers them (s3:ListBucket for ListObjectsV2, s3:GetObject for HeadObject): a
#: user granted an action is granted those names too, so either version enforces the
#: policy AWS would.
MOTO_OPERATION_NAMES = {
    "s3:ListBucket": ["s3:ListObjectsV2", "s3:HeadBucket"],
    "s3:GetObject": ["s3:HeadObject"],
}


@pytest.fixture
def iam(s3_endpoint: str) -> Iterator[Any]:
    """``iam(actions)`` -> a user allowed those S3 actions; moto enforces IAM in the test."""
    import boto3
    import requests

    client = boto3.client("iam", endpoint_url=s3_endpoint)

    def user(actions: list[str]) -> IamUser:
        name = f"user-{uuid.uuid4().hex[:8]}"
        client.create_user(UserName=name)
        if actions:
            granted = [*actions, *(n for a in actions for n in MOTO_OPERATION_NAMES.get(a, []))]
            statement = {"Effect": "Allow", "Action": granted, "Resource": "*"}
            document = {"Version": "2012-10-17", "Statement": [statement]}
            client.put_user_policy(
                UserName=name, PolicyName="p", PolicyDocument=json.dumps(document)
            )
        key = client.create_access_key(UserName=name)["AccessKey"]
        return IamUser(key["AccessKeyId"], key["SecretAccessKey"])

    def enforce(on: bool) -> None:
        count = b"0" if on else b"inf"
        requests.post(f"{s3_endpoint}/moto-api/reset-auth", data=count, timeout=10)

    user.enforce = enforce  # type: ignore[attr-defined]
    try:
        yield user
    finally:
        enforce(False)


@pytest.fixture
def memory() -> Iterator[str]:
    """A root of fsspec's memory filesystem (a process-wide store), emptied after."""
    from fsspec.implementations.memory import MemoryFileSystem

    name = f"t-{uuid.uuid4().hex[:12]}"
    yield f"memory://{name}"
    root = f"/{name}"
    for path in [p for p in MemoryFileSystem.store if p.startswith(root)]:
        del MemoryFileSystem.store[path]
    MemoryFileSystem.pseudo_dirs[:] = [
        p for p in MemoryFileSystem.pseudo_dirs if not p.startswith(root)
    ]


@pytest.fixture
def register_filesystem(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``register_filesystem("flaky", cls)`` for the test only."""

    def register(protocol: str, cls: type) -> None:
        monkeypatch.setitem(REGISTRY._registry, protocol, cls)

    return register
