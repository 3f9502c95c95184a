// Package mqtest is the kit the chapters and the tests share: the scaffolding every chapter
// and crash test would otherwise copy, so a chapter is its scenario (its run(w, cfg)) and its
// exercises only. It is used by chapters and tests, never by the system's own code.
//
// Java: none (RocketMQ's tests build the same from their own base classes, e.g.
// BaseConf in its integration tests).
//
// Files, in reading order:
//   - stage.go: Stage (one serialized output, the trace printer behind a gate, the logger and
//     the run's directory, a temp dir removed at Close), Say; a chapter's frame: Main, Config
//     and InDir (a run that varies only its dir), Play (a Stage set up around the scene and
//     closed after it).
//   - scene.go: what the chapters on one embedded cluster start alike: OneBroker (the
//     cluster's config: ManualServices on the chapter's clock, small files), Topic and
//     CreateRoutedTopics, QuietGroups (no NOTIFY_CONSUMER_IDS_CHANGED), StartScene and Scene
//     (cluster, remoting client, producer; Shutdown), StartProducer and MustStartProducer,
//     Stage.Untraced (a step of the scenario kept out of the log), ExerciseStage (an
//     exercise's stage, its scenario shut down and its log printed on failure at cleanup).
//   - remote.go: Invoke (remotingtest.Call), CreateTopic (UPDATE_AND_CREATE_TOPIC), QueryRoute
//     (GET_ROUTEINFO_BY_TOPIC), WaitRouted, WaitUntil.
//   - servers.go: Servers, what a chapter that builds its own brokers starts and stops: a name
//     server, the brokers and producers, a remoting client; MustStartServers for a test (stopped
//     at its cleanup); a Stage's StartServers are stopped when the stage closes; StartCluster,
//     a test's embedded cluster with small store files, shut down at its cleanup, and
//     StartACLCluster (aclEnable=true) and StartTLSCluster (a tls.server.mode) beside it.
//   - table.go: Table, the box-drawn tables the chapters print.
//   - files.go: CopyDir (a snapshot of a store as a crash leaves it), FileName (a log file's
//     20-digit name).
//   - golden.go: Golden (a chapter's run against its golden file, through
//     trace/tracetest.CompareGolden; the -update flag of every test binary that links the
//     kit) and RunLeavesNoTempDir.
//   - child.go: the crash tests' child process: ChildMain (TestMain's child mode), StartChild
//     (the test binary run again, its address read from the line ReportAddr prints;
//     StartChildFunc reads it from a line of the child's own, such as a boot banner), Child
//     (Kill with SIGKILL, Signal, Wait, Output); BinaryMain, the TestMain of a command whose
//     tests run the test binary as the command.
//   - broker.go: ServeBroker, the body of a child that serves a broker until it is killed;
//     WaitCommitted, the wait for a persist's oneway offset updates to land.
//   - senders.go: Senders, SEND_MESSAGE from several goroutines until the broker is gone, and
//     the Ack of each acknowledged send.
//   - clients.go: ClientSetup, a chapter's client settings (loopback, a named instance, no
//     scheduled tasks, its logger, clock and trace name) applied to a producer's or consumer's
//     ClientConfig and Options; ProducerConfig, a chapter's producer that prints the same every
//     run (ClientSetup, round robin from 0).
//   - metrics.go: WaitExporterURL (the URL a binary prints when its /metrics endpoint listens),
//     Scrape (one GET of it), MetricSum and MetricValue (a series' value in the exposition
//     text, by name and labels).
//   - ha.go: ConnectSlave and Replicate, a master/slave pair's HA passes played by hand (stores
//     with ManualServices): connect, then frames until the slave's log ends where the master's does.
//   - turnstile.go: Turnstile, a handler in front of one client's logger that stops the
//     goroutine logging a record with an armed attribute until the scenario lets it pass (two
//     consumers notified at once print in the order the scenario chooses), and counts records.
//
// Time: the kit has no clock of its own. Chapters and tests use mq/clock's Manual for the
// components' time; WaitUntil and StartChild's timeouts are on the wall clock, since they
// wait for real goroutines and processes.
//
// A Turnstile holds a stopped goroutine at most 10 s (wall clock) if the scenario never lets it
// pass. Goroutines: StartChild runs one per child (reading its output, then waiting for its exit);
// Senders runs one per sending goroutine until Stop. Neither outlives the test: a child is
// killed at the test's cleanup, Stop waits for the senders.
package mqtest
