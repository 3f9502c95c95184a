// Package command is mqadmin's subcommands: each parses RocketMQ's options (-n, -t, -g, -b,
// -c, ... with their long names), calls mq/admin and prints what RocketMQ's tool prints, tables
// through tablewriter with RocketMQ's column names. Main is the whole tool; mq/cmd/mqadmin
// only hands it os.Args, and tests call it in-process against an embedded cluster.
//
// Java: org.apache.rocketmq.tools.command (MQAdminStartup, SubCommand and the *SubCommand
// classes).
//
// # Files in reading order
//
//	command.go        SubCommand, Options (short and long flag names, required ones), Env, Main
//	                  (help, dispatch, exit codes: 0 done, 1 failed, 2 bad command line), the
//	                  table helper
//	topic_cmds.go     updateTopic, deleteTopic, topicList, topicRoute, topicStatus; targets (-b
//	                  or -c to broker addresses)
//	cluster_cmds.go   clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig
//	consumer_cmds.go  consumerProgress, consumerConnection, producerConnection, updateSubGroup,
//	                  deleteSubGroup, resetOffsetByTime
//	message_cmds.go   queryMsgById, queryMsgByKey, queryMsgByOffset, printMsg, consumeMessage,
//	                  sendMessage
//	security.go       conf/tools.yml credentials under ROCKETMQ_HOME and the TLS_* environment
//	                  variables (RocketMQ's tls.enable and tls.client.* keys) for the admin client
//	dump_store.go     dumpStore (a learner's command beyond RocketMQ's): a store's CommitLog
//	                  records field by field, ConsumeQueue units, index header, slots and
//	                  entries, checkpoint — from the files, opened read-only
//
// No goroutines of its own; each run opens one admin client (and sendMessage one producer)
// and closes it before returning.
//
// # Deviations
//
//   - consumerProgress prints "N/A" as #Client IP (GET_CONSUMER_RUNNING_INFO is not built).
//   - queryMsgById and queryMsgByOffset print the body instead of writing it to a file.
//   - printMsg and consumeMessage print one line per message (msgId, queue, offset, keys,
//     tags, body) instead of MessageExt#toString.
package command
