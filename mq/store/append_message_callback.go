package store

// defaultAppendMessageCallback writes encoded records into a CommitLog file.
// Mirrors CommitLog.DefaultAppendMessageCallback.
type defaultAppendMessageCallback struct {
	c *CommitLog
}

// storeTimestampPos is the STORETIMESTAMP position: 48 + born host length.
func storeTimestampPos(sysFlag int32) int {
	if sysFlag&sysFlagBornHostV6 != 0 {
		return posBornHost + 20
	}
	return posBornHost + 8
}

// queueOffset reads the next queue offset (units) the table holds for a queue.
func (c *CommitLog) queueOffset(topic string, queueID int32) (QueueOffset, bool) {
	c.putMu.Lock()
	defer c.putMu.Unlock()
	v, ok := c.topicQueueTable[topicQueueKey{topic, queueID}]
	return v, ok
}

// setTopicQueueTable replaces the next-offset table. Java: CommitLog#setTopicQueueTable.
func (c *CommitLog) setTopicQueueTable(t map[topicQueueKey]QueueOffset) {
	c.putMu.Lock()
	c.topicQueueTable = t
	c.putMu.Unlock()
}

func (c *CommitLog) removeQueueFromTopicQueueTable(topic string, queueID int32) {
	c.putMu.Lock()
	delete(c.topicQueueTable, topicQueueKey{topic, queueID})
	c.putMu.Unlock()
}
