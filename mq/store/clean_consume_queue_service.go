package store

import (
	"log/slog"
)

// CleanConsumeQueueService follows the CommitLog's min offset: when it moved, each
// ConsumeQueue deletes its files whose last unit points below it (never its last file) and
// corrects its min offset, and the index files ending below it are deleted.
// Mirrors DefaultMessageStore.CleanConsumeQueueService.
type CleanConsumeQueueService struct {
	env                   *storeEnv
	commitLog             *CommitLog // whose min offset it follows
	queues                *consumeQueueTable
	index                 *IndexService
	pacer                 filePacer
	lastPhysicalMinOffset CommitLogOffset
}

func newCleanConsumeQueueService(env *storeEnv, commitLog *CommitLog, queues *consumeQueueTable, index *IndexService,
	pacer filePacer) *CleanConsumeQueueService {
	return &CleanConsumeQueueService{env: env, commitLog: commitLog, queues: queues, index: index, pacer: pacer}
}

func (c *CleanConsumeQueueService) run() { c.deleteExpiredFiles() }

// deleteExpiredFiles is one pass. Java: CleanConsumeQueueService#deleteExpiredFiles.
func (c *CleanConsumeQueueService) deleteExpiredFiles() {
	minOffset := c.commitLog.getMinOffset()
	if minOffset <= c.lastPhysicalMinOffset {
		return
	}
	c.lastPhysicalMinOffset = minOffset
	queues, cqFiles := 0, 0
	c.queues.forEach(func(cq *ConsumeQueue) {
		n := cq.deleteExpiredFile(minOffset)
		if n > 0 {
			queues++
			cqFiles += n
			c.pacer.pause(c.env.cfg.DeleteConsumeQueueFilesInterval)
		}
	})
	indexFiles := c.index.deleteExpiredFile(minOffset)
	if tr := c.env.tracer; tr.Enabled() {
		tr.Step("CleanConsumeQueueService#deleteExpiredFiles", slog.Int64("commitLogMinOffset", int64(minOffset)),
			slog.Int("consumeQueuesTrimmed", queues), slog.Int("consumeQueueFilesDeleted", cqFiles),
			slog.Int("indexFilesDeleted", indexFiles))
	}
}
