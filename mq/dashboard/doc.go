// Package dashboard is the web console of a broker: server-rendered pages over the admin
// operations mqadmin uses (mq/admin), and a live step trace streamed from the broker's own
// tracer. mqbroker runs it in its process with -dashboard :8080 (or dashboardAddr=:8080 in its
// -c file).
//
// Java: none in RocketMQ itself; its counterpart is the RocketMQ Dashboard (rocketmq-dashboard,
// a Spring application over DefaultMQAdminExt): cluster, topics, consumer groups, message
// lookup. The live trace is this project's: the step trace the chapters print, from a running
// broker.
//
// # In the broker's process, not beside it
//
// The pages need only the admin requests, which any process could send; the live trace needs
// the broker's step records, which exist only inside the broker (its *trace.Tracer). A separate
// mq/cmd/dashboard would need a new wire request to ship steps out of the broker, and would
// build them even when nobody looks. So the console runs in mqbroker: the broker's tracer
// writes to a trace.Hub, and a page that opens the live trace subscribes to it. While no page
// watches, the hub's atomic watcher count keeps every `if tr.Enabled()` guard false and the put
// path allocates what it allocates without a tracer (mq/store's TestPutAllocationsWithIdleHub).
// The pages themselves still go through the name server and the broker's remoting port, so a
// console in one broker shows every broker its name servers know.
//
// # Pages
//
//	/                   cluster: every broker, role, address, version, put/get TPS, totals,
//	                    CommitLog end, dispatch lag, a slave's replication lag, disk use
//	/topics, /topic?t=  topics; one topic's route, queues (min/max offset, ConsumeQueue units),
//	                    consuming groups
//	/groups, /group?g=  consumer groups: members, type, model, lag, orderly (the group holds queue
//	                    locks: only orderly consumers lock queues); one group's lag per queue
//	/message            lookup by id (offsetMsgId, or UNIQ_KEY with a topic) or by key, each
//	                    message decoded field by field (admin.MessageFields)
//	/trace?topic=       the live trace; its script opens /trace/events?topic= (server-sent
//	                    events, one step line each) and can send a test message (POST /send)
//
// Everything is rendered by html/template, so message bodies, keys and topic names are escaped
// for where they stand; pages also send a Content-Security-Policy that allows no script but the
// console's own file. The one request that changes something, POST /send, is refused with 403
// unless the broker enables it (dashboardWriteEnable=true), and when its Origin is another site.
// Templates, style sheet and script are embedded in the binary (no build step).
//
// # Files in reading order
//
//	dashboard.go     Config, Dashboard (New, routes, Start, ServeOn, Addr, URL, Shutdown), QueueLockOwners
//	pages.go         the page handlers: cluster, topics, topic, groups, group, message, trace
//	render.go        the embedded templates and assets, render, the security headers
//	trace_filter.go  topicFilter: one topic's steps out of the broker's, held steps correlated
//	                 by CommitLog offset (per component), idle pulls left out (idlePull),
//	                 rendered with trace.Printer
//	trace_stream.go  /trace/events: the server-sent-events stream of one page
//	send.go          POST /send: the test message (403 unless dashboardWriteEnable)
//	templates/*.html static/style.css static/trace.js  (embedded)
//
// Goroutines: the HTTP server's (one per request; a live trace page holds one for as long as it
// stays open, ended by Shutdown). Locks: topicFilter.mu guards a page's held steps and printer
// (taken on the goroutines that log); watchMu the page count; prodMu the test producer.
package dashboard
