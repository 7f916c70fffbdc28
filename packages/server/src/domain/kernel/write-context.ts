/** Who writes: the store every query is scoped by, and the mode its events carry. */
export interface WriteContext {
  storeId: string;
  livemode: boolean;
}
