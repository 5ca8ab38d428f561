/**
 * An architectural fault thrown inside instruction execution and caught by the run loop, which turns
 * it into a value (`RunResult`) with RIP rewound to the faulting instruction. Never escapes the package.
 * @see Intel SDM Vol. 3A §6.5 (exception classifications: faults restart the instruction)
 */
export class CpuFault {
  constructor(
    readonly vector: number,
    readonly errorCode: number | undefined,
    readonly cr2: bigint | undefined = undefined,
  ) {}
}
