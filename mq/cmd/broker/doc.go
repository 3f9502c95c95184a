// Command broker runs a RocketMQ broker (RocketMQ's mqbroker).
//
//	go run ./mq/cmd/broker                        # name server in-process on 9876, broker on 10911, store ~/store
//	go run ./mq/cmd/broker -n "10.0.0.1:9876"     # register with these name servers instead (';'-separated)
//	go run ./mq/cmd/broker -c conf/broker.conf    # RocketMQ keys: brokerName, listenPort, storePathRootDir, ...
//	go run ./mq/cmd/broker -p                     # print the effective config
//	go run ./mq/cmd/broker -dashboard :8080       # and the web console on port 8080 (dashboardAddr)
//	go run ./mq/cmd/broker -cpuprofile cpu.pprof  # a CPU profile of the run, written at shutdown
//
// With no name server given (-n, namesrvAddr in the -c file, or the NAMESRV_ADDR environment
// variable) it starts a name server in the same process on port 9876 (an ephemeral port when
// listenPort is 0, as in tests), on the broker's bindAddress, with its kvConfig.json under
// storePathRootDir/namesrv, so one command gives a working RocketMQ. conf/broker.conf is that
// setup; conf/namesrv.conf with conf/broker-a.conf is a separate name server and a master.
// -h lists the flags and the defaults. An error is printed once, prefixed "mqbroker: ", and
// exits 1 (2 for a bad flag); -p refuses what a start would, with the same message. Operating logs go to stderr through log/slog at the -c file's logLevel
// (INFO by default).
//
// SIGINT or SIGTERM shuts down gracefully (BrokerController.Shutdown): unregister from the name
// servers, stop accepting connections, answer every request already read, write
// config/consumerOffset.json, topics.json and subscriptionGroup.json, flush and close the
// store; then the in-process name server stops and the process exits 0.
//
// Java: org.apache.rocketmq.broker.BrokerStartup#main. The startup logic itself lives in
// mq/broker (ParseCommandLine, StartWithConfig) so chapters and tests can run it, the in-process
// name server in mq/embedded (StartInProcessNamesrv), the exit status in mq/internal/startup
// (ExitCode, shared with mqnamesrv); this command only calls them and waits for a signal.
//
// With -dashboard (or dashboardAddr in the -c file) it also serves the web console
// (mq/dashboard) in the same process: the pages use the admin requests any process could send,
// but the live trace streams the broker's own step records, which exist only inside the broker,
// so the console lives here rather than in a separate mq/cmd/dashboard. The broker's tracer then
// writes to a trace.Hub, which hands steps out only while a live trace page watches.
// dashboardWriteEnable=true lets the pages send a test message; off, they answer 403.
//
// The console's and the metrics exporter's ports are bound before the name server and the
// broker start, so a port in use stops the command before any "boot success" line, with an
// error naming the keys (dashboardAddr / -dashboard; metricsPromExporterHost:metricsPromExporterPort).
//
// # Garbage collection
//
// Unless the environment sets GOGC, mqbroker runs the collector at GOGC=400
// (debug.SetGCPercent), and unless it sets GOMEMLIMIT, with a soft memory limit of 128 MiB
// (debug.SetMemoryLimit). The broker's live Go heap is a few MiB however much it stores (the
// messages are in the mapped files, which the Go runtime does not count), so at the default
// GOGC=100 a busy broker collected every few MiB of request garbage: under an async 1 KiB
// publish load, about one collection per thousand messages; at 400, a quarter of that, and the
// broker's CPU per message fell by about a fifth (docs/benchmarks.md). The price is a
// larger heap between collections: the broker's RssAnon while storing 2 GiB peaked at 68 MiB
// instead of 14 MiB. The soft limit makes the collector work harder before the runtime's memory
// passes 128 MiB; a deployment whose live heap approaches it should set GOMEMLIMIT (or GOGC)
// itself, which mqbroker then leaves alone.
//
// # Files
//
//	main.go     main and runMain (signals, exit status), run (parse, bind the HTTP ports, start,
//	            wait, shut down), the metrics exporter; the tests call both
//	console.go  the tracer over a trace.Hub when the console is on, and the console's start
//	gc.go       tuneGC: mqbroker's GC percent and soft memory limit when GOGC / GOMEMLIMIT are unset
//	profile.go  startCPUProfile: -cpuprofile's file and runtime/pprof
package main
