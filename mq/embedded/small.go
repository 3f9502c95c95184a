package embedded

import "github.com/annotated-rocketmq/rocketmq-go/mq/store"

// SmallFiles gives a store the small files the chapters and tests share, instead of RocketMQ's
// production sizes (1 GiB CommitLog files, 300,000-unit ConsumeQueue files, 5 million hash
// slots and 20 million entries per index file): 64 KiB CommitLog files, ConsumeQueue files of
// 100 units, index files of 64 slots and 200 entries. A scenario's files roll after a few
// hundred messages, and a store in a temp dir stays small. Use it as, or inside, a
// Config.Customize; a test that needs other sizes sets them after it.
func SmallFiles(sc *store.MessageStoreConfig) {
	sc.MappedFileSizeCommitLog = 64 << 10
	sc.MappedFileSizeConsumeQueue = 100 * store.ConsumeQueueUnitSize
	sc.MaxHashSlotNum, sc.MaxIndexNum = 64, 200
}

// SmallStoreConfig is RocketMQ's store defaults with SmallFiles, rooted at root: the store a
// chapter builds its own broker on, or a crash test's child process serves.
func SmallStoreConfig(root string) store.MessageStoreConfig {
	sc := store.DefaultMessageStoreConfig()
	sc.StorePathRootDir = root
	SmallFiles(&sc)
	return sc
}
