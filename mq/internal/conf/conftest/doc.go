// Package conftest writes the properties files (broker.conf, namesrv.conf) that the startup
// tests of the name server, the broker and their commands hand to "-c". It is used by tests
// only.
//
// Java: none (RocketMQ's startup tests write their files inline).
//
// # Files
//
//	write.go  Write (a properties file of the given lines in a fresh temp dir, its path)
//
// No goroutines, no locks.
package conftest
