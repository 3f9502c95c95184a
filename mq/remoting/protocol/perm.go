package protocol

// Permission bits of topics and brokers (remoting-protocol.md §5.7). Mirrors
// org.apache.rocketmq.common.constant.PermName; values pinned by TestPermName.
const (
	PermPriority int32 = 8
	PermRead     int32 = 4
	PermWrite    int32 = 2
	// PermInherit marks a topic that may serve as an auto-create template (TBW102: 7).
	PermInherit int32 = 1
)

// IsReadable reports PermRead. Java: PermName#isReadable.
func IsReadable(perm int32) bool { return perm&PermRead == PermRead }

// IsWriteable reports PermWrite. Java: PermName#isWriteable.
func IsWriteable(perm int32) bool { return perm&PermWrite == PermWrite }

// IsInherited reports PermInherit. Java: PermName#isInherited.
func IsInherited(perm int32) bool { return perm&PermInherit == PermInherit }

// Perm2String renders perm as Java's admin tools do: "RWX" with '-' for a missing bit
// (X = inherit). Java: PermName#perm2String.
func Perm2String(perm int32) string {
	b := []byte("---")
	if IsReadable(perm) {
		b[0] = 'R'
	}
	if IsWriteable(perm) {
		b[1] = 'W'
	}
	if IsInherited(perm) {
		b[2] = 'X'
	}
	return string(b)
}
