// Package interop holds tests that drive our name server and broker with the official Apache
// RocketMQ Go client (github.com/apache/rocketmq-client-go/v2), unmodified: the client no one
// here wrote is the judge of the protocol.
//
// The tests start an embedded cluster on ephemeral loopback ports in a temp dir, one per test,
// and run in parallel. They are left out of the race detector run: the official client has data
// races of its own. Every official client gets a unique instance name (the client keeps
// process-wide state per ip@instanceName); "exactly once" means every expected message arrived,
// then nothing more within a quiet window of a few seconds.
//
// Files, in reading order:
//   - helpers_test.go: TestMain (and its child-broker mode), cluster, producer and push-consumer
//     helpers, the collector that checks "exactly once", a raw remoting connection.
//   - sends_test.go: the official client's sends and what its push consumer gets of them: 100
//     sync sends consumed once each (the smoke test), 1,000 tagged sync sends (per-queue offsets
//     0..n-1, tag and non-ASCII tag subscriptions), async, oneway and batch sends.
//   - limits_test.go: an oversize incompressible body is refused with MESSAGE_ILLEGAL;
//     malformed frames close only their own connection.
//   - restart_test.go: a broker in a child process (this test binary re-run with
//     ROCKETMQ_GO_INTEROP_CHILD=broker) is stopped with SIGTERM and restarted on the same store;
//     the group's offsets and the queues' offsets survive.
//   - commitlog_test.go: CommitLog files written by the official client, read back with plain
//     file reads and checked field by field against docs/reference/store-formats.md §2.1
//     and §2.3.
//   - interop_namesrv_test.go: the official producer stops sending to a broker once the name
//     server's expiry scan removed it (on the name server's hand-advanced clock).
//   - interop_retry_test.go: the official consumer's retries through CONSUMER_SEND_MSG_BACK,
//     SCHEDULE_TOPIC_XXXX and %RETRY%<group>, then the DLQ; the official producer's delay level.
//   - transaction_test.go: the official transaction producer: commit, rollback, and UNKNOW
//     resolved by the broker's check-back, as its push consumer sees them.
//   - lite_pull_test.go: the official pull consumer (NewPullConsumer, Poll, ACK) reads every
//     message once and its offsets reach each queue's end; our DefaultLitePullConsumer reads
//     what the official producer sends (TagA only, once each, in offset order per queue).
//   - orderly_test.go: the official orderly consumer (LOCK_BATCH_MQ) keeps every order's steps
//     in order while a third member joins and the first leaves; our producer sends them with SelectMessageQueueByHash.
//   - interop_producer_test.go: what our producer (mq/client/producer) sends reaches the official
//     push consumer intact, each message once.
//   - interop_consumer_test.go: what the official producer sends reaches our push consumer
//     (mq/client/consumer): tag filtering, compressed bodies, keys.
//   - stress_test.go: our push consumers and the official client's in one group, started and
//     stopped at random while senders write: nothing lost, duplicates within at-least-once's
//     bound, each queue owned once when stable (-stress 60s or STRESS=60s for the long run).
//   - admin_test.go: the official client's admin API (CreateTopic, FetchAllTopicList,
//     GetAllSubscriptionGroup, DeleteTopic) against our name server and broker.
//   - bench_test.go: BenchmarkOfficialClientProduceConsume, produce to consume end to end with
//     the official client (figures: docs/benchmarks.md).
//   - request_reply_test.go: the official client's rpc examples' shape (Request, RequestAsync,
//     consumer.CreateReplyMessage) through our ReplyMessageProcessor; bad SEND_REPLY_MESSAGEs.
//   - request_reply_ours_test.go: our producer's Request/RequestAsync answered by our push
//     consumer with client.CreateReplyMessage; a request nobody answers times out.
//   - tls_test.go: the official client's WithTls and our UseTLS against tls.server.mode
//     enforcing, permissive and disabled.
package interop
