"""URLs: inputs and outputs in object storage, or anywhere else fsspec can reach.

A name such as ``s3://logs/2026/12/`` or ``memory://calls.jsonl`` (any
``protocol://``, or a chain such as ``simplecache::s3://...``) is read and
written through fsspec; every other name stays a local path and never loads it,
so the default install stays light. Credentials and endpoints are fsspec's own
business (its config files, ``FSSPEC_<PROTOCOL>_<OPTION>`` variables, each
filesystem's usual environment such as ``AWS_*``), plus the storage options a
caller passes, which win.

What stops a run (a filesystem not installed, a missing bucket, access denied)
is found here before a line is read, and raised as one line naming the URL.

filesystems.py names a URL's filesystem; listing.py finds the objects a URL, a glob or a
prefix names; reading.py opens and reads them; writing.py checks outputs and uploads
finished files whole.
"""
