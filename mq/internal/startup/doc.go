// Package startup is what the two binaries' startup code shares, so mqnamesrv and mqbroker
// (mq/namesrv's CreateNamesrvController, mq/broker's ParseCommandLine, mq/cmd/*) say and do the
// same thing the same way: the server keys a properties file may set besides RocketMQ's config
// structs (bindAddress) and their validation, the -c and -p flags on a flag set that writes
// to stderr, reading the -c file, the -p convention (the effective properties on stdout,
// nothing started, exit 0), and main itself: the signals that stop it and the exit status
// with its one "mqbroker: " / "mqnamesrv: " error line.
//
// Java: the shared parts of org.apache.rocketmq.namesrv.NamesrvStartup and
// org.apache.rocketmq.broker.BrokerStartup (commons-cli's -c and -p options, MixAll's
// printObjectProperties, System.exit).
//
// # Files
//
//	server_keys.go  ServerKeys (bindAddress), DefaultBindAddress, Validate and ListenAddr
//	flags.go        Flags (-c FILE, -p), SetUsage (-h) and Parse (bad flags wrapped in conf.ErrUsage),
//	                ApplyConfigFile (-c), PrintConfig and ErrPrintedConfig (-p), ExitCode (the
//	                binaries' exit status)
//	main.go         Main: a binary's main (SIGINT/SIGTERM to stop, then ExitCode)
//
// No goroutines, no locks: the functions work on the values they are given.
package startup
