// Replaced by the NPU target sources.
namespace tessera::npu {}
