"""Where an audit runs: in this process, or in several (``--jobs``)."""
