/* Compiled without the plugin into the test binary: functions the differentiated code only hands
   bytes and counters to (a logger's buffer, a stream's character). */
static unsigned long sink_hash = 1469598103934665603ul;
long byte_sink_write(void *stream, const char *buf, long n) {
  (void)stream;
  for (long i = 0; i < n; ++i)
    sink_hash = (sink_hash ^ (unsigned char)buf[i]) * 1099511628211ul;
  return n;
}
void byte_sink_count(int *counter) { ++*counter; }
unsigned long byte_sink_hash(void) { return sink_hash; }
