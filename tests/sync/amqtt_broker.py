"""An amqtt broker (MQTT 3.1.1 only: the demo's embedded broker) for the sync tests, run as a
subprocess so a test can stop and restart it like Mosquitto.

    python -m tests.sync.amqtt_broker --port 18830

Prints ``LISTENING <port>`` once it accepts connections; SIGTERM shuts it down cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence

from amqtt.broker import Broker


def config(port: int) -> dict[str, object]:
    """The smallest amqtt configuration: one loopback TCP listener, anonymous clients."""
    return {
        "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                    {"allow_anonymous": True}},
    }


async def serve(port: int) -> None:
    """Run the broker until SIGTERM or SIGINT."""
    broker = Broker(config(port))
    await broker.start()
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)
    print(f"LISTENING {port}", flush=True)
    await done.wait()
    await broker.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    asyncio.run(serve(args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
