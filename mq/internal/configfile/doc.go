// Package configfile writes and reads the broker's JSON config files (config/topics.json,
// consumerOffset.json, subscriptionGroup.json, delayOffset.json) the way RocketMQ does: a new
// version is written to `<file>.tmp`, the current file is kept as `<file>.bak`, then the temp
// file is renamed over the file; a reader falls back to `.bak` when the file is missing or
// corrupt. The procedure is docs/reference/store-formats.md §7.1.
//
// Java: org.apache.rocketmq.common.ConfigManager (load, loadBak, persist) and
// org.apache.rocketmq.common.MixAll#string2File.
//
// # Files
//
//	configfile.go  Store (tmp, bak, rename; the temp file is synced before the rename) and Load
//	               (file, else .bak; it reports which one it used)
//
// No goroutines, no locks: callers (the broker's config managers, the schedule service)
// serialize their own writes of one file.
package configfile
