/**
 * How long the client commands wait for the agent, unless `--timeout` says otherwise: shared by the command
 * definitions (their help) and what the commands do.
 */

/**
 * `card`: seconds to wait for the agent card.
 *
 * @since 0.1.0
 * @category constants
 */
export const CARD_TIMEOUT_SECONDS = 30

/**
 * `send`, `get`, `cancel`, `subscribe`, `tasks`: seconds to wait for a reply (for a stream: for it to open).
 *
 * @since 0.1.0
 * @category constants
 */
export const REPLY_TIMEOUT_SECONDS = 60
