/**
 * The replicas' broadcast (redis-broadcast.ts) on a Redis Cluster of the test's own, three primaries with a
 * replica each: a publication reaches a member listening through any node, lists the registered members, and
 * when the node holding the subscription dies the listener is told it may have missed messages, then that it
 * listens again, and receives what is published after (docs/adr/0080-redis-cluster-and-sentinel.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../testing/eventually.js";
import { redisCli, startRedisCluster, type TestRedisCluster } from "../../../testing/redis-cluster.js";
import { REDIS_SERVER_INSTALLED } from "../../../testing/redis-server.js";
import { createLogger } from "./log.js";
import { createRedisBroadcast, type RedisBroadcast } from "./redis-broadcast.js";
import { redisFromEnv } from "./redis-connection.js";

describe.skipIf(!REDIS_SERVER_INSTALLED)("the replicas' broadcast on a Redis Cluster (own redis-servers)", () => {
  const log = createLogger("test", "error", () => {});
  const prefix = "broadcast-test:";
  let cluster: TestRedisCluster;
  let listener: RedisBroadcast;
  let publisher: RedisBroadcast;
  const received: string[] = [];
  const subscriptions: boolean[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const connection = redisFromEnv({ REDIS_CLUSTER_NODES: cluster.nodes })!;
    listener = createRedisBroadcast(connection, log, prefix, "events");
    publisher = createRedisBroadcast(connection, log, prefix, "events");
    listener.listen(
      (message) => received.push(message),
      (subscribed) => subscriptions.push(subscribed),
    );
    await eventually(async () => expect(subscriptions).toEqual([true]));
  });

  afterAll(async () => {
    await Promise.all([listener?.close(), publisher?.close()]);
    await cluster?.close();
  });

  it("delivers a publication and lists the registered members with it", async () => {
    await eventually(() => listener.register("replica-a", 60_000));
    const members = await publisher.publish("first");
    expect(members.map((member) => member.id)).toEqual(["replica-a"]);
    await eventually(async () => expect(received).toEqual(["first"]));
  });

  it("says the subscription was lost when its node dies, takes it again, and delivers what comes after", async () => {
    const channel = `${prefix}events`;
    const holding = await eventually(async () => {
      for (const port of cluster.ports) {
        const answer = await redisCli(port, "pubsub", "numsub", channel).catch(() => "");
        if (answer.split("\n")[1] === "1") return port;
      }
      throw new Error("no node holds the subscription");
    });
    await cluster.killNode(holding);
    await eventually(async () => {
      expect(subscriptions.slice(1)).toContain(false);
      expect(subscriptions.at(-1)).toBe(true);
    }, 20_000);
    await eventually(async () => {
      await publisher.publish("after the failover");
      expect(received).toContain("after the failover");
    }, 20_000);
  });
});
