#!/usr/bin/env python3
# A TCP proxy on loopback that holds every chunk for DELAY_MS in each direction: a link whose
# round trips take 2 × DELAY_MS, for measuring a store on PostgreSQL as another machine would
# reach it (docs/SEVERAL-MACHINES.md). Standard library only.
#
#   python3 scripts/delay-proxy.py LISTEN_PORT TARGET_PORT DELAY_MS
#   feedcli next FEED --state postgresql://USER:PASSWORD@127.0.0.1:LISTEN_PORT/DB
import asyncio
import sys

listen_port, target_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer):
    server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
