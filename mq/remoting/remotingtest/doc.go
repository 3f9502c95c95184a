// Package remotingtest starts loopback remoting servers for the tests of the packages above
// remoting (a scripted name server or broker answering a few codes), as net/http/httptest
// does for HTTP handlers, hands out addresses nobody listens on, and sends one request with a
// timeout (Call, Invoke). It is used by tests, the test kit mq/mqtest and the chapters.
//
// Java: none (RocketMQ's tests start NettyRemotingServer instances of their own).
//
// # Files
//
//	server.go  StartServer (a server on a free loopback port, its processors registered by
//	           the caller, shut down at the test's cleanup), StartRouteServer (a stand-in name
//	           server answering every route query with one TopicRouteData), Call (one request
//	           with a timeout, for callers without a testing.T: chapters, crash children),
//	           Invoke (Call whose transport failure fails the test), DeadAddr
//	tls.go     SelfSignedCert: a certificate and key generated at run time, as PEM files
//
// Goroutines: those of the remoting.Server it starts, stopped at the test's cleanup. No locks.
package remotingtest
