/** Types of builds.mjs (plain JavaScript, so `npm start` runs it without a TypeScript loader). */
export declare const serverBuild: string;
export declare function ensureServerBuild(): void;
export declare function ensureConsoleBuild(): void;
