// Package remotingtest starts loopback remoting servers for the tests of the packages above
// remoting (a scripted name server or broker answering a few codes), as net/http/httptest
// does for HTTP handlers, and hands out addresses nobody listens on. It is used by tests only.
//
// Java: none (RocketMQ's tests start NettyRemotingServer instances of their own).
//
// # Files
//
//	server.go  StartServer (a server on a free loopback port, its processors registered by
//	           the caller, shut down at the test's cleanup), StartRouteServer (a stand-in name
//	           server answering every route query with one TopicRouteData), Invoke (a request
//	           whose transport failure fails the test), DeadAddr
//
// Goroutines: those of the remoting.Server it starts, stopped at the test's cleanup. No locks.
package remotingtest
