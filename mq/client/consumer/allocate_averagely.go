//go:build !ex_ch06

package consumer

import (
	"log/slog"
	"slices"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
)

// Allocate implements the strategy. Java: AllocateMessageQueueAveragely#allocate.
func (a AllocateMessageQueueAveragely) Allocate(group, currentCID string, mqAll []primitive.MessageQueue, cidAll []string) []primitive.MessageQueue {
	index := slices.Index(cidAll, currentCID)
	if index < 0 || len(mqAll) == 0 {
		return nil
	}
	n, c := len(mqAll), len(cidAll)
	mod := n % c
	var averageSize int
	switch {
	case n <= c:
		averageSize = 1
	case mod > 0 && index < mod:
		averageSize = n/c + 1
	default:
		averageSize = n / c
	}
	startIndex := index*averageSize + mod
	if mod > 0 && index < mod {
		startIndex = index * averageSize
	}
	rng := min(averageSize, n-startIndex)
	out := make([]primitive.MessageQueue, 0, max(rng, 0))
	for i := 0; i < rng; i++ {
		out = append(out, mqAll[(startIndex+i)%n])
	}
	if a.Tracer.Enabled() {
		a.Tracer.Step("AllocateMessageQueueAveragely#allocate", slog.String("group", group),
			slog.Int("mqAll", n), slog.Int("cidAll", c), slog.Int("index", index), slog.String("queueIds", queueIDs(out)))
	}
	return out
}
