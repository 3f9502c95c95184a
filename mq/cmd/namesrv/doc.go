// Command namesrv runs a RocketMQ name server alone (RocketMQ's mqnamesrv).
//
//	go run ./mq/cmd/namesrv            # listens on 9876
//	go run ./mq/cmd/namesrv -c ns.conf # RocketMQ keys, e.g. listenPort=9877
//	go run ./mq/cmd/namesrv -p         # print the effective config
//
// Operating logs go to stderr through log/slog at the config's logLevel (INFO by default).
// SIGINT or SIGTERM shuts it down; it prints "The Name Server[addr] shutdown OK". Its keys:
// listenPort (9876), bindAddress (0.0.0.0), kvConfigPath, logLevel; -h shows the defaults. An
// error is printed once on stderr, prefixed "mqnamesrv: ", and exits 1; a bad flag prints the
// flag package's line and the usage on stderr and exits 2.
//
// Java: org.apache.rocketmq.namesrv.NamesrvStartup#main. The startup logic lives in mq/namesrv
// (Main); this command only sets up logging and waits for a signal.
//
// # Files
//
//	main.go  main (startup.Main: signals, exit status) and run (logger, namesrv.Main, the signal
//	         wait, Shutdown and its "shutdown OK" line), which the tests call
package main
