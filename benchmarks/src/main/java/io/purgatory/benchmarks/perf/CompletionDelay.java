package io.purgatory.benchmarks.perf;

import java.util.random.RandomGenerator;

/**
 * The distribution of the delay after which a completing request's condition comes to hold (a
 * follower fetch catching up, say), with a given mean. Stateless: thread-safe; the caller passes
 * the random source.
 */
enum CompletionDelay {
    /** Memoryless: most requests complete quickly, with a long tail. */
    EXPONENTIAL {
        @Override
        double sample(RandomGenerator random, double mean, double sigma) {
            return -mean * Math.log(1 - random.nextDouble());
        }
    },
    /**
     * Log-normal with the given mean and shape {@code sigma} (the standard deviation of the log):
     * {@code exp(mu + sigma * Z)} with {@code mu = ln(mean) - sigma^2 / 2}, so that its mean is
     * {@code mean}. Service latencies typically look like this.
     */
    LOGNORMAL {
        @Override
        double sample(RandomGenerator random, double mean, double sigma) {
            double mu = Math.log(mean) - sigma * sigma / 2;
            return Math.exp(mu + sigma * random.nextGaussian());
        }
    };

    /**
     * Draws one delay, in the unit of mean.
     *
     * @param sigma the log-normal shape; ignored by the exponential
     */
    abstract double sample(RandomGenerator random, double mean, double sigma);
}
