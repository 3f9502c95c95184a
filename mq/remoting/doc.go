// Package remoting carries RemotingCommands over TCP: Netty's role in RocketMQ. It owns the
// frame codec (JSON and ROCKETMQ binary headers), the connection (Channel) with its batched
// writer, the server that answers requests by code on per-processor worker pools, and the client
// that matches responses to requests by opaque. It knows only the generic response codes
// (SUCCESS 0, SYSTEM_ERROR 1, SYSTEM_BUSY 2, REQUEST_CODE_NOT_SUPPORTED 3); request codes,
// business response codes and typed headers live in mq/remoting/protocol.
//
// Java: the rocketmq-remoting module — org.apache.rocketmq.remoting.protocol.RemotingCommand,
// netty.NettyRemotingAbstract, NettyRemotingServer, NettyRemotingClient, NettyDecoder/Encoder.
//
// Files, in reading order:
//
//	command.go          RemotingCommand, flag bits, generic codes, NewRequest/NewResponse
//	codec.go            frame layout, EncodeFrame, DecodeFrame
//	json_header.go      the JSON header: hand-written appending encoder and tolerant decoder
//	rocketmq_header.go  the ROCKETMQ binary header
//	errors.go           sentinels and RemoteError
//	disconnect.go       IsPeerGone: a peer going away (reset, broken pipe) is INFO, not WARN
//	processor.go        RequestProcessor, ProcessorFunc, NeverRejects, WorkerPool, dispatch by code
//	                    (processRequestCommand)
//	rpc_hook.go         RPCHook: a check before every processor (Server), signing (Client)
//	channel.go          Channel: reader, batched writer, pending responses, close order
//	events.go           channel events to the ChannelEventListener (NettyEventExecutor)
//	server.go           Server (NettyRemotingServer)
//	client.go           Client (NettyRemotingClient)
//	tls.go              TLS: tls.server.mode (disabled, permissive: plain and TLS on one port told
//	                    apart by the first byte, enforcing), TLSServerKeys/TLSClientKeys (RocketMQ's
//	                    tls.* keys) → crypto/tls settings; the first-byte sniffer
//	options.go          Option, WithClock: the clock of idle detection and of a pool's queue stamps;
//	                    WithResponseObserver: a Server's hook seeing every response code written (metrics);
//	                    positiveOr: zero config fields take their defaults
//
// Frame (big-endian):
//
//	+---------------+---------------+------------------+-----------------+--------------+
//	| length  (4 B) | type    (1 B) | headerLen  (3 B) | header          | body         |
//	+---------------+---------------+------------------+-----------------+--------------+
//	length = 4 + headerLen + bodyLen; type 0 = JSON, 1 = ROCKETMQ
//
// JSON header as we write it (fields always present except remark and extFields, which are
// left out when empty; extFields keys sorted, values strings):
//
//	{"code":0,"language":"JAVA","version":409,"opaque":7,"flag":1,"remark":"...","extFields":{"k":"v"}}
//
// Flag bit 0 marks a response, bit 1 a oneway request. A response carries its request's opaque.
// A oneway request is never answered (not even with an error).
//
// Deviations from Java (each also marked where it lives):
//   - a oneway request with an unknown code, or one refused as busy, gets no answer (Java answers);
//   - the JSON header leaves out "serializeTypeCurrentRPC" (informational, ignored by decoders);
//   - idle connections are found by a scanner every ChannelMaxIdle/4 (at most 1 s), not by a
//     per-channel timer, so a channel closes up to that much later than ChannelMaxIdle;
//   - the event queue is unbounded (Java drops events beyond 10000);
//   - ServerWorkerThreads only sizes pools registered with workers ≤ 0.
//
// Goroutines: per connection one reader (decode, dispatch) and one writer (drains the outgoing
// queue into a 64 KiB bufio.Writer, flushes when the queue is empty: one write() per burst);
// per registered pool its workers; per server one accept loop, one event executor and one idle
// scanner; per client one idle scanner. Shutdown of a Server or Client waits for all of them.
//
// Time: a Server, a Client and a WorkerPool each take one clock (WithClock, default the system
// clock); it stamps every read and write of a connection (idle detection) and every request a
// pool queues (its age). Socket deadlines are wall-clock time, whatever the clock.
//
// Locks: Channel.wmu guards the outgoing queue, Channel.pmu the pending responses;
// WorkerPool.mu its queue; Server.mu and Client.mu their connection sets; processorTable.mu the
// code table; eventExecutor.mu its queue. No lock is held while calling a processor, a
// listener or a callback, or while doing I/O.
package remoting
