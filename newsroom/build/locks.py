"""The build's folder locks as their file descriptors: what a forked render worker must not keep.

A lock (`flock`) lasts while any descriptor of its open file is open, and a forked worker inherits the
build's. A build killed while its workers were busy (SIGKILL, or a SIGTERM that only the build process
gets) left them holding its folders' locks until they had worked through their chunks, and the next build
of those folders was refused as if another one were running.

Every child this process forks closes its copies at once (`os.register_at_fork`), before it runs any code
of its own: a build killed the moment after it forked a worker leaves no lock behind either (a worker
closing them as it began its work kept them while the machine was too busy to start it)."""

from __future__ import annotations

import os

#: The descriptors of the locks this process holds (see pipeline._only_build_of).
HELD: set[int] = set()


def release_inherited() -> None:
    """Close a forked worker's copies of the build's lock descriptors: the build's own keep the locks."""
    for descriptor in HELD:
        try:
            os.close(descriptor)
        except OSError:  # closed already
            pass
    HELD.clear()


os.register_at_fork(after_in_child=release_inherited)
