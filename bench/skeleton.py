"""The command path DESIGN.md prescribes, with none of boardlog's work in it: its floor.

bench_peers runs it beside boardlog and boardgame.io, so one run says how much of boardlog's
CPU a command the parts themselves cost (uvicorn, the dramatiq hop on boardlog's own broker,
Redis, the reply) before any rule, hash, signature, receipt or projection:

- `api`: uvicorn (uvloop, httptools) with a bare ASGI app, no FastAPI. `POST
  /v1/games/{gid}/commands?wait=1` reads the JSON body's `id`, registers a waiter on boardlog's
  reply subscription (events.store.replies), enqueues a dramatiq message on boardlog's
  broker (workers.broker: its dispatch script and wake-up, sent as the API's command queue
  sends them, in one raw round trip of events.store.wire's Batch), and answers 200 when the
  reply is published. `GET .../legal` answers that seat 0 may move, which is all bench_spine's
  load generator asks of it.
- `worker`: a dramatiq Worker on the same broker, one actor: XADD one entry to the game's
  stream and PUBLISH the reply, in one round trip over the thread's raw `Link` (the worker's
  and the store's own connection, events.store.wire).

Every client is made as boardlog's composition root makes it (service.runtime.bootstrap's
`redis_client` and `async_redis_client`, the broker by `make_broker` with the orjson encoder),
so the floor it measures is the one boardlog's own clients could reach, not redis-py's.
- `api --inline`: no broker and no worker: the API appends the entry itself and answers. What a
  command path in the API process would cost at the least, which DESIGN.md does not have.

    python -m bench.skeleton api --redis URL --namespace NS --port N [--inline]
    python -m bench.skeleton worker --redis URL --namespace NS [--threads 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from typing import Any

import dramatiq
import orjson
import redis.asyncio as aioredis

from events.store.replies import Replies
from events.store.wire import Batch, Links, checked, no_script
from service.runtime.bootstrap import async_redis_client, redis_client
from service.runtime.heap import settle_heap
from workers.broker import WakingRedisBroker, make_broker
from workers.encoding import OrjsonEncoder

QUEUE = "skeleton"
NEXT = b'{"commands": [{"type": "race.roll"}]}'


def _broker(url: str, namespace: str) -> WakingRedisBroker:
    broker = make_broker(url, namespace=f"{namespace}-dramatiq")
    dramatiq.set_encoder(OrjsonEncoder())
    dramatiq.set_broker(broker)
    return broker


def stream_key(namespace: str, gid: str) -> str:
    return f"{namespace}:skeleton:{gid}"


def serve_worker(url: str, namespace: str, threads: int) -> None:
    broker = _broker(url, namespace)
    links = Links.for_client(redis_client(url))
    assert links is not None, "the skeleton runs on a plain Redis"

    def command(gid: str, cid: str, channel: str) -> None:
        reply = gid.encode() + b" " + orjson.dumps({"id": cid, "status": "accepted"})
        checked(links.run([("XADD", stream_key(namespace, gid), "*", "c", cid), ("PUBLISH", channel, reply)]))

    dramatiq.actor(command, actor_name="command", queue_name=QUEUE, broker=broker)
    worker = dramatiq.Worker(broker, worker_threads=threads, worker_timeout=1000)
    settle_heap()  # as boardlog's parts do (service/runtime/heap.py): the floor is theirs
    worker.start()
    stop = False

    def on_term(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    while not stop:
        time.sleep(0.2)
    worker.stop()


class App:
    """The ASGI app: the command path and the one read the load generator makes."""

    def __init__(self, url: str, namespace: str, inline: bool = False) -> None:
        self.url, self.namespace, self.inline = url, namespace, inline
        self.broker = _broker(url, namespace)
        dramatiq.actor(lambda gid, cid, channel: None, actor_name="command", queue_name=QUEUE, broker=self.broker)
        self.aio: aioredis.Redis
        self.batch: Batch
        self.replies: Replies

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        path: str = scope["path"]
        if scope["method"] == "GET":
            await self.answer(send, 200, NEXT)
            return
        body = b""
        while True:
            msg = await receive()
            body += msg.get("body", b"")
            if not msg.get("more_body"):
                break
        gid = path.split("/")[3]
        cid = str(orjson.loads(body)["id"])
        if self.inline:
            checked(await self.batch.run([("XADD", stream_key(self.namespace, gid), "*", "c", cid)]))
            await self.answer(send, 200, orjson.dumps({"id": cid, "status": "accepted"}))
            return
        fut = self.replies.expect(gid, cid)
        try:
            await self.enqueue(dramatiq.Message(queue_name=QUEUE, actor_name="command",
                                                args=(gid, cid, self.replies.channel), kwargs={}, options={}))
            timer = asyncio.get_running_loop().call_later(5.0, Replies.time_up, fut)
            result = await fut
            timer.cancel()
        finally:
            self.replies.forget(gid, cid, fut)
        if result is None:
            await self.answer(send, 504, b'{"error": "no reply in 5 s"}')
            return
        await self.answer(send, 200, orjson.dumps({"id": cid, "status": "accepted"}))

    async def enqueue(self, message: dramatiq.Message) -> None:
        """As events.store.queue.OneTripQueue enqueues (without its pending record)."""
        message, commands = self.broker.prepare_enqueue(message)
        out = await self.batch.run(commands)
        if no_script(out[0]):  # a new server: load the broker's dispatch script once
            out = await self.batch.run([self.broker.load_dispatch(), *commands])
        checked(out)
        self.broker.enqueued(message)

    @staticmethod
    async def answer(send: Any, status: int, body: bytes) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    async def lifespan(self, receive: Any, send: Any) -> None:
        while True:
            msg = await receive()
            if msg["type"] == "lifespan.startup":
                self.aio = async_redis_client(self.url)
                self.batch = Batch(self.aio)
                self.replies = Replies(self.aio, self.namespace)
                await self.replies.start()
                await send({"type": "lifespan.startup.complete"})
            elif msg["type"] == "lifespan.shutdown":
                await self.replies.stop()
                await self.batch.close()
                await self.aio.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


class SkeletonStack:
    """The skeleton's API and worker processes on a Redis; `cpu()` as bench_spine's Stack has it."""

    def __init__(self, redis_url: str, namespace: str, threads: int, redis_pid: int, inline: bool = False) -> None:
        from bench.bench_spine import ROOT, answering
        from service.runtime.embedded import free_port

        self.port = free_port()
        self.redis_pid = redis_pid
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "bench.skeleton"]
        common = ["--redis", redis_url, "--namespace", namespace]
        self.procs = {"api": subprocess.Popen([*cmd, "api", *common, "--port", str(self.port),
                                               *(["--inline"] if inline else [])], env=env)}
        if not inline:
            self.procs["worker"] = subprocess.Popen([*cmd, "worker", *common, "--threads", str(threads)], env=env)
        answering(f"http://127.0.0.1:{self.port}/v1/games/x/legal", 60)

    def cpu(self) -> dict[str, float]:
        import psutil

        pids = {**{k: p.pid for k, p in self.procs.items()}, "redis": self.redis_pid}
        out = {k: sum(psutil.Process(pid).cpu_times()[:2]) for k, pid in pids.items()}
        out["loadgen"] = sum(psutil.Process().cpu_times()[:2])
        return out

    def stop(self) -> None:
        for p in self.procs.values():
            p.terminate()
        for p in self.procs.values():
            p.wait(timeout=20)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("part", choices=["api", "worker"])
    ap.add_argument("--redis", required=True)
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--inline", action="store_true")
    args = ap.parse_args()
    if args.part == "worker":
        serve_worker(args.redis, args.namespace, args.threads)
        return
    import uvicorn

    settle_heap()
    uvicorn.run(App(args.redis, args.namespace, args.inline), host="127.0.0.1", port=args.port, loop="uvloop", http="httptools",
                log_level="warning", access_log=False, lifespan="on")


if __name__ == "__main__":
    main()
