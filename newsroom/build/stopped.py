"""A build stopped at once (see rendering.run_all), apart from the rendering: the commands that name it load it
without the templates' machinery (a build with nothing to do loads none of it)."""


class StoppedAtOnce(BaseException):
    """The build was stopped a third time (Ctrl-C, `kill`) as it waited for its render workers to end: they were
    ended by force (SIGTERM, then SIGKILL), and the build ends without its pages. A stop as KeyboardInterrupt is,
    not an error; the command names what is left (its folder) and what to do."""
