// Plays a trace through Guava RateLimiters built as a "Use these settings" snippet builds them,
// and prints the verdict of each request (allowed or rejected), for scripts/check-snippets.sh to
// compare with the lab's guava row. Runs against Debian's libguava-java jar.
//
// The rate is the argument of the snippet's `RateLimiter.create(...)`, read from Example.java.
// Guava's public `create(rate)` is `create(rate, SleepingStopwatch.createFromSystemTimer())`;
// this class sits in Guava's package to call the same package-private `create(rate, stopwatch)`
// with a stopwatch it moves to each request's time. One limiter per key, both made at time 0;
// each request is `tryAcquire(cost)`, which never sleeps, as the row is.
// Usage: java -cp guava.jar:CLASSES com.google.common.util.concurrent.SnippetRun EXAMPLE TRACE
package com.google.common.util.concurrent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class SnippetRun {
    /** The injected clock: reads what the trace sets; tryAcquire only ever sleeps 0 µs. */
    static final class Clock extends RateLimiter.SleepingStopwatch {
        long micros;

        @Override
        protected long readMicros() {
            return micros;
        }

        @Override
        protected void sleepMicrosUninterruptibly(long micros) {
            if (micros > 0) {
                throw new IllegalStateException("tryAcquire slept");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String example = Files.readString(Path.of(args[0]));
        Matcher create = Pattern.compile("RateLimiter\\.create\\(([^)]+)\\);").matcher(example);
        if (!create.find()) {
            throw new IllegalArgumentException(args[0] + ": no RateLimiter.create(...)");
        }
        String literal = create.group(1);
        double rate = literal.equals("Double.POSITIVE_INFINITY")
                ? Double.POSITIVE_INFINITY
                : Double.parseDouble(literal);
        Clock clock = new Clock();
        RateLimiter a = RateLimiter.create(rate, clock);
        RateLimiter b = RateLimiter.create(rate, clock);
        for (String line : Files.readAllLines(Path.of(args[1]))) {
            String[] f = line.split(",");
            clock.micros = Long.parseLong(f[0]) * 1000;
            RateLimiter limiter = f[1].equals("a") ? a : b;
            System.out.println(limiter.tryAcquire(Integer.parseInt(f[2])) ? "allowed" : "rejected");
        }
    }
}
