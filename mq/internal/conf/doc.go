// Package conf reads Java properties files into config structs and prints structs back in
// properties syntax, by the `prop:"key"` tags the config structs carry (RocketMQ's keys).
//
// Java: org.apache.rocketmq.common.MixAll#properties2Object / #printObjectProperties, which the
// RocketMQ startup classes use for `-c` and `-p`.
//
// Supported field kinds: string, bool, all int kinds, and time.Duration. A duration's unit is
// given by the tag option: `prop:"flushIntervalCommitLog,ms"` (the default) or `,s`; the file
// holds a plain number in that unit, as RocketMQ's files do.
//
// # Files
//
//	conf.go  ParseProperties (the properties-file reader), Apply (properties -> structs, returning
//	         the keys no struct knows), Format (structs -> properties text, for -p) and
//	         ParseLogLevel (the logLevel key shared by the broker and the name server)
//	suggest.go  Keys, Suggest and DescribeUnknown: the "did you mean X?" hint for an unknown
//	         key, by edit distance; ErrUsage, the binaries' "flag error already printed"
//
// No goroutines, no locks: the functions work on the values they are given.
package conf
