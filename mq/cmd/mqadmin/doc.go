// Command mqadmin operates a running cluster (RocketMQ's mqadmin): topics, routes, clusters,
// broker status and config, consumer progress and connections, subscription groups, messages
// by id, key or offset, sending and consuming, resetting offsets by time.
//
//	go run ./mq/cmd/mqadmin                                 # the subcommands
//	go run ./mq/cmd/mqadmin clusterList -n 127.0.0.1:9876
//	go run ./mq/cmd/mqadmin updateTopic -n 127.0.0.1:9876 -c DefaultCluster -t T
//	go run ./mq/cmd/mqadmin topicStatus -h                  # a subcommand's options
//
// The name server comes from -n or NAMESRV_ADDR. Output goes to stdout; an error is printed on
// stderr as "<subcommand> command failed: <error>" (a broker's or name server's answer as
// "CODE: n DESC: remark") and exits 1; a bad command line prints the usage and exits 2.
//
// Against a broker with aclEnable=true it signs with accessKey and secretKey of
// $ROCKETMQ_HOME/conf/tools.yml (no file: unsigned); TLS_ENABLE=true (RocketMQ's tls.enable) and
// TLS_CLIENT_CERTPATH, TLS_CLIENT_KEYPATH, TLS_CLIENT_AUTHSERVER, TLS_CLIENT_TRUSTCERTPATH
// (tls.client.*) make its connections TLS.
//
// Java: org.apache.rocketmq.tools.command.MQAdminStartup. The subcommands live in
// mq/admin/command, so tests run them in-process; this command only calls command.Main.
//
// # Files
//
//	main.go  main: command.Main over os.Args, stdout and stderr (main_test.go runs the test
//	         binary as mqadmin and checks its exit codes)
package main
